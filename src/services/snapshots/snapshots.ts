import { existsSync, rmSync } from 'node:fs';
import { os } from '../../core/builtins.js';
import { basename, join } from 'node:path';
import { LanesError } from '../../core/errors.js';
import { refSafeSessionId, sessionIdFromRefPart, slugify } from '../../core/slug.js';
import { git } from '../../git/run.js';
import { captureWorktree, commitTree, createRef, diffNames, listRefs } from '../../git/snapshot.js';
import type { SkippedPath } from '../../git/nested-repos.js';
import type { CaptureHints, RefEntry } from '../../git/snapshot.js';
import { addWorktree, branchExists, revParse } from '../../git/worktree.js';
import type { LanesContext } from '../context.js';
import { prepareRestoreTarget } from './restore-target.js';
import { lanesWorktreeDir } from '../worktrees/worktree-dir.js';

export const SNAPSHOT_PREFIX = 'refs/lanes/snapshots/';

export interface Snapshot {
  ref: string;
  /** The session the snapshot belongs to (or `orphan.<worktree>` for a worktree without one). */
  owner: string;
  n: number;
  commit: string;
  parent: string | null;
  tree: string;
  time: number;
  subject: string;
}

export interface SnapshotResult {
  /** Null when there is nothing uncommitted to save (no ref is made for a clean worktree). */
  snapshot: Snapshot | null;
  /** False when nothing changed since the owner's last snapshot, or nothing to save (no new ref). */
  created: boolean;
  /** Files that differ from HEAD in the snapshot (-1 when not counted). */
  files: number;
  /** What the snapshot could not hold: nested repositories, changes inside submodules (named, not lost silently). */
  skipped: SkippedPath[];
}

function toSnapshot(e: RefEntry): Snapshot | null {
  const rest = e.ref.slice(SNAPSHOT_PREFIX.length);
  const slash = rest.lastIndexOf('/');
  const n = Number(rest.slice(slash + 1));
  if (slash <= 0 || !Number.isInteger(n)) return null;
  return {
    ref: e.ref,
    owner: sessionIdFromRefPart(rest.slice(0, slash)),
    n,
    commit: e.commit,
    parent: e.parent,
    tree: e.tree,
    time: e.time,
    subject: e.subject,
  };
}

/** What was not saved, for a message: each path and why ('' when everything was). */
export function notSaved(skipped: SkippedPath[]): string {
  if (skipped.length === 0) return '';
  const what = skipped.map(
    (s) =>
      `${s.path} (${s.why === 'nested repository' ? 'a nested git repository: commit in it, or make it a submodule' : 'changes inside a submodule: commit them in it'})`,
  );
  return `not saved: ${what.join(', ')}`;
}

/** One line for people and agents: what a snapshot did. */
export function describeSnapshot(r: SnapshotResult): string {
  const what = !r.snapshot
    ? 'nothing to save: the worktree has no uncommitted changes'
    : r.created
      ? `saved ${r.snapshot.ref} (${r.files < 0 ? 'the changed files' : r.files === 1 ? '1 changed file' : `${r.files} changed files`})`
      : `nothing changed since ${r.snapshot.ref}`;
  const skipped = notSaved(r.skipped);
  return skipped ? `${what}; ${skipped}` : what;
}

/** The owner name of a worktree without a session: stable, ref-safe. */
export function orphanOwner(worktree: string): string {
  return `orphan.${slugify(basename(worktree), 'worktree')}`;
}

export class SnapshotService {
  constructor(private readonly ctx: LanesContext) {}

  /** Every snapshot, or those of one owner, or of several (the sweep: one git process for all). */
  async list(owner?: string | string[]): Promise<Snapshot[]> {
    const repo = await this.ctx.repo();
    if (!repo) return [];
    const of = (o: string) => `${SNAPSHOT_PREFIX}${refSafeSessionId(o)}/`;
    const prefix = owner === undefined ? SNAPSHOT_PREFIX : typeof owner === 'string' ? of(owner) : owner.map(of);
    const all = (await listRefs(repo.worktreeRoot, prefix)).map(toSnapshot).filter((s): s is Snapshot => s !== null);
    return all.sort((a, b) => a.owner.localeCompare(b.owner) || a.n - b.n);
  }

  /**
   * Saves the worktree's whole uncommitted state as a commit (parent: HEAD) under
   * refs/lanes/snapshots/<owner>/<n>, touching neither index, files nor any branch. No new ref
   * when nothing changed since the owner's last snapshot.
   */
  async snapshot(
    worktree: string,
    owner: string,
    reason: string,
    options: {
      countFiles?: boolean;
      /** What a `git status` just run in the worktree told (the sweep): see captureWorktree. */
      hints?: CaptureHints;
      /** The owner's newest snapshot as the caller read it (the sweep lists them all once), or null: none. */
      last?: Snapshot | null;
    } = {},
  ): Promise<SnapshotResult> {
    if (!existsSync(worktree))
      throw new LanesError('E_NOT_FOUND', `the worktree ${worktree} does not exist`, {
        hint: 'see `git worktree list`; `git worktree prune` forgets missing ones',
      });
    const cap = await captureWorktree(worktree, options.hints);
    const skipped = cap.skipped;
    // Clean: the working state is HEAD's tree (or, before a first commit, the empty tree).
    if (cap.tree === cap.base) return { snapshot: null, created: false, files: 0, skipped };
    // Counting changed files costs a diff; the sweep already knows them from git status.
    const files = options.countFiles === false ? -1 : (await diffNames(worktree, cap.head, cap.tree)).length;
    const last = options.last !== undefined ? options.last : (await this.list(owner)).at(-1);
    if (last && last.tree === cap.tree && last.parent === cap.head)
      return { snapshot: last, created: false, files, skipped };
    const commit = await commitTree(
      worktree,
      cap.tree,
      cap.head,
      `lanes snapshot of ${owner}: ${reason}\n\nworktree: ${worktree}\n`,
    );
    for (let n = (last?.n ?? 0) + 1; ; n++) {
      const ref = `${SNAPSHOT_PREFIX}${refSafeSessionId(owner)}/${n}`;
      // Create-only: two sweeps snapshotting one owner at once get different numbers, never overwrite.
      if (await createRef(worktree, ref, commit, `lanes snapshot: ${reason}`)) {
        const snapshot: Snapshot = {
          ref,
          owner,
          n,
          commit,
          parent: cap.head,
          tree: cap.tree,
          time: Math.floor(Date.now() / 1000),
          subject: `lanes snapshot of ${owner}: ${reason}`,
        };
        return { snapshot, created: true, files, skipped };
      }
      if (n > (last?.n ?? 0) + 1000)
        throw new LanesError('E_GIT', `cannot create a snapshot ref under ${SNAPSHOT_PREFIX}${owner}/`);
    }
  }

  /** A snapshot named `SESSION/N` or by its full ref. */
  async resolve(name: string): Promise<Snapshot> {
    const slash = name.lastIndexOf('/');
    const ref = name.startsWith('refs/')
      ? name
      : slash > 0
        ? `${SNAPSHOT_PREFIX}${refSafeSessionId(name.slice(0, slash))}/${name.slice(slash + 1)}`
        : '';
    const found = ref ? (await this.list()).find((s) => s.ref === ref) : undefined;
    if (!found)
      throw new LanesError('E_NOT_FOUND', `no snapshot ${JSON.stringify(name)}`, {
        hint: 'list them with `lanes snapshots`; name one as SESSION/N or by its full ref',
      });
    return found;
  }

  /**
   * Restores a snapshot into a NEW worktree (on a new branch at the snapshot's parent, the work
   * uncommitted on top, exactly as it was) or into an empty directory. Never over existing work.
   */
  async restore(name: string, into?: string): Promise<{ path: string; branch: string | null; snapshot: Snapshot }> {
    const snap = await this.resolve(name);
    const repo = await this.ctx.repo();
    if (!repo) throw new LanesError('E_USAGE', 'restore needs to run inside the repository');
    if (into !== undefined) {
      into = prepareRestoreTarget(into, this.ctx.cwd);
      const index = join(os().tmpdir(), `lanes-restore-${process.pid}-${Date.now()}.index`);
      try {
        // A throw-away index: read-tree -u writes the snapshot's files into the directory.
        await git(['--work-tree', into, 'read-tree', '-u', '--reset', snap.tree], {
          cwd: repo.worktreeRoot,
          env: { GIT_INDEX_FILE: index },
        });
      } finally {
        rmSync(index, { force: true });
      }
      return { path: into, branch: null, snapshot: snap };
    }
    const root = await lanesWorktreeDir(repo.worktreeRoot);
    const stem = `restore-${slugify(snap.owner)}-${snap.n}`;
    let slug = stem;
    for (let i = 2; existsSync(join(root, slug)) || (await branchExists(repo.worktreeRoot, `lanes/${slug}`)); i++)
      slug = `${stem}-${i}`;
    const path = join(root, slug);
    const branch = `lanes/${slug}`;
    const base = snap.parent ?? (await revParse(repo.worktreeRoot, 'HEAD'));
    if (!base)
      throw new LanesError('E_USAGE', 'the snapshot has no parent commit to put a worktree on', {
        hint: 'use --into DIR',
      });
    await addWorktree(repo.worktreeRoot, path, branch, base);
    // Move the new worktree's files (not its index) from the base to the snapshot: a two-tree
    // read-tree moves index and files, then a mixed reset puts the index back on HEAD.
    await git(['read-tree', '-m', '-u', 'HEAD', snap.tree], { cwd: path });
    await git(['reset', '-q'], { cwd: path });
    return { path, branch, snapshot: snap };
  }
}
