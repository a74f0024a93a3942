import {
  closeSync,
  constants,
  copyFileSync,
  fsyncSync,
  linkSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import type { Stats } from 'node:fs';
import { join } from 'node:path';
import { crypto } from '../core/builtins.js';
import { LanesError } from '../core/errors.js';
import { bootId, hostId, identityOf } from '../core/process-identity.js';
import type { OwnerIdentity } from '../core/process-identity.js';

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
 * git's own index protocol: whoever creates `<gitdir>/index.lock` exclusively owns the index until
 * it renames a new index over `index` (commit) or deletes the lock (rollback). Every git command
 * that writes the index (add, commit, reset, checkout, stash) takes the same lock, so holding it
 * makes a concurrent `git add`/`git commit` in this worktree wait for us or fail loudly
 * ("index.lock: File exists"), never interleave.
 *
 * lanes' lock is created whole, already holding who took it (a hard link of a finished file, which
 * fails when the lock exists: as exclusive as O_EXCL, and never seen empty). git never reads a
 * lock's content, so a lock whose content names a lanes process that is gone is exactly one a
 * killed lanes left, and the next lanes call takes it back; any other lock is left alone.
 */
export class IndexLock {
  private held = true;

  private constructor(private readonly gitDir: string) {}

  get lockPath(): string {
    return join(this.gitDir, 'index.lock');
  }

  static async acquire(gitDir: string, waitMs: number): Promise<IndexLock> {
    const path = join(gitDir, 'index.lock');
    const deadline = Date.now() + waitMs;
    const record = join(gitDir, `index.lock.lanes-${process.pid}-${crypto().randomBytes(4).toString('hex')}`);
    writeFileSync(record, JSON.stringify({ lanes: 1, owner: identityOf(process.pid) }));
    try {
      for (;;) {
        try {
          linkSync(record, path);
          return new IndexLock(gitDir);
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
          // Ours, left by a lanes process that was killed holding it: taken back, never git's own.
          if (removeIfOrphaned(gitDir)) continue;
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
    } finally {
      rmSync(record, { force: true });
    }
  }

  /**
   * Copies the index to `staging` (a file of its own in the git directory) for git to be pointed
   * at (GIT_INDEX_FILE), with the index's own mtime (see indexCopyMtime; seen in the index-incident
   * test before the mtime was kept). False when there is no index yet (a repository before its
   * first `git add`): the caller makes `staging` an empty index (`git read-tree --empty`).
   */
  fill(index: string, staging: string): boolean {
    if (!this.held) throw new Error('index lock already released');
    let st;
    try {
      st = statSync(index);
    } catch {
      return false;
    }
    copyFileSync(index, staging);
    utimesSync(staging, st.atimeMs / 1000, indexCopyMtime(st));
    return true;
  }

  /**
   * Installs `staging` as the new index (rename) and gives the lock back: git's commit step. The
   * content must have been written by git itself AT `staging`: git marks entries that are "racily
   * clean" against the time it writes the index file, and a rename keeps that mtime. Copying git's
   * output later would give the index a newer mtime than git judged against, and a file rewritten
   * within the same timestamp tick would then look unchanged to `git status`. The lock file itself
   * is never replaced, so the owner record's inode stays true until the lock goes.
   */
  commit(staging: string): void {
    if (!this.held) throw new Error('index lock already released');
    fsyncFile(staging);
    renameSync(staging, join(this.gitDir, 'index'));
    this.release();
  }

  /** Gives the lock back without changing the index. Safe to call after commit(). */
  release(): void {
    if (!this.held) return;
    this.held = false;
    rmSync(this.lockPath, { force: true });
  }
}

function fsyncFile(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The lanes process named in an index.lock, or null (git's own lock, or unreadable). */
function lanesOwner(lock: string): OwnerIdentity | null {
  try {
    const rec = JSON.parse(readFileSync(lock, 'utf8')) as { lanes?: unknown; owner?: OwnerIdentity | null };
    return rec.lanes === 1 && rec.owner ? rec.owner : null;
  } catch {
    return null;
  }
}

/** Whether index.lock is one a killed lanes process left: its taker, of this host and boot, is gone. */
export function orphanedLock(gitDir: string): boolean {
  const o = lanesOwner(join(gitDir, 'index.lock'));
  if (!o || o.host !== hostId()) return false;
  const now = identityOf(o.pid);
  return !(o.bootId === bootId() && now !== null && now.startTime === o.startTime);
}

/**
 * Removes index.lock when a killed lanes process left it (orphanedLock). One reclaimer at a time
 * (index.lock.reclaim, O_EXCL), which checks again inside: two processes that both saw the dead
 * lock never remove the new one the first of them took.
 */
export function removeIfOrphaned(gitDir: string): boolean {
  if (!orphanedLock(gitDir)) return false;
  const guard = join(gitDir, 'index.lock.reclaim');
  let fd: number;
  try {
    fd = openSync(guard, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644);
  } catch {
    // A reclaimer killed inside its few statements left its guard: stale after ten seconds.
    try {
      if (Date.now() - statSync(guard).mtimeMs > 10_000) rmSync(guard, { force: true });
    } catch {
      /* gone meanwhile */
    }
    return false;
  }
  try {
    if (!orphanedLock(gitDir)) return false;
    rmSync(join(gitDir, 'index.lock'), { force: true });
    return true;
  } finally {
    closeSync(fd);
    rmSync(guard, { force: true });
  }
}
