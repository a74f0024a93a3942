import {
  closeSync,
  constants,
  fsyncSync,
  futimesSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import type { Stats } from 'node:fs';
import { join } from 'node:path';
import { LanesError } from '../core/errors.js';

/**
 * The mtime (seconds) for a copy of an index whose original has stats `st`: never later than the
 * original's (rounded down to the microsecond, minus one for float error). That matters: git's
 * racy-git check trusts an entry whose file mtime is older than the index file's mtime. A copy
 * stamped "now" would make entries recorded in the index's last second look safe, and a file
 * rewritten within that second with the same size (git compares whole seconds unless built with
 * USE_NSEC) would stay invisible to `git add` and `git status` run against the copy.
 */
export function indexCopyMtime(st: Stats): number {
  return (Math.floor(st.mtimeMs * 1000) - 1) / 1e6;
}

/**
 * git's own index protocol: whoever creates `<gitdir>/index.lock` with O_EXCL owns the index until
 * it renames the lock over `index` (commit) or deletes it (rollback). Every git command that
 * writes the index (add, commit, reset, checkout, stash) takes the same lock, so holding it makes a
 * concurrent `git add`/`git commit` in this worktree wait for us or fail loudly ("index.lock:
 * File exists"), never interleave.
 */
export class IndexLock {
  private constructor(
    private readonly gitDir: string,
    private fd: number | null,
  ) {}

  get lockPath(): string {
    return join(this.gitDir, 'index.lock');
  }

  static async acquire(gitDir: string, waitMs: number): Promise<IndexLock> {
    const path = join(gitDir, 'index.lock');
    const deadline = Date.now() + waitMs;
    for (;;) {
      try {
        return new IndexLock(gitDir, openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
        if (Date.now() >= deadline) {
          throw new LanesError(
            'E_CLAIM_HELD',
            `another git process holds ${path} (a git add, commit or similar is running in this worktree)`,
            {
              hint: `wait for it and try again; if no git process is running, a crashed one left it behind: remove it (rm '${path}')`,
              details: { lock: path },
            },
          );
        }
        await new Promise((r) => setTimeout(r, 5 + Math.random() * 10));
      }
    }
  }

  /**
   * Fills the lock file with the current index so git can be pointed at it (GIT_INDEX_FILE), and
   * gives it the index's own mtime (see indexCopyMtime). Seen in the index-incident test before
   * the mtime was kept.
   */
  /**
   * Copies the index into the lock file. False when there is no index yet (a repository before its
   * first `git add`): the lock stays an empty file, which git reads as a corrupt index ("smaller than
   * expected"), so the caller writes an empty index there first (`git read-tree --empty`).
   */
  fill(index: string): boolean {
    if (this.fd === null) throw new Error('index lock already released');
    let st;
    try {
      st = statSync(index);
    } catch {
      return false;
    }
    const content = readFileSync(index);
    for (let off = 0; off < content.length;) off += writeSync(this.fd, content, off);
    futimesSync(this.fd, st.atimeMs / 1000, indexCopyMtime(st));
    fsyncSync(this.fd);
    return true;
  }

  /**
   * Installs the lock file as the new index (rename): git's commit step. The content must have been
   * written by git itself AT the lock path (GIT_INDEX_FILE=index.lock): git marks entries that are
   * "racily clean" against the time it writes the index file, and a rename keeps that mtime. Copying
   * git's output into the lock later would give the index a newer mtime than git judged against, and
   * a file rewritten within the same timestamp tick would then look unchanged to `git status`.
   */
  commit(): void {
    if (this.fd === null) throw new Error('index lock already released');
    closeSync(this.fd);
    this.fd = null;
    renameSync(this.lockPath, join(this.gitDir, 'index'));
  }

  /** Gives the lock back without changing the index. Safe to call after commit(). */
  release(): void {
    if (this.fd === null) return;
    closeSync(this.fd);
    this.fd = null;
    rmSync(this.lockPath, { force: true });
  }
}
