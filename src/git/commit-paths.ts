import { existsSync, rmSync } from 'node:fs';
import { crypto } from '../core/builtins.js';
import { join } from 'node:path';
import { LanesError } from '../core/errors.js';
import { IndexLock } from './index-lock.js';
import { git } from './run.js';
import { diffNames, treeOf } from './snapshot.js';
import { currentBranch, gitDirOf, revParse } from './worktree.js';

export interface PathCommit {
  /** Directory the paths are relative to (inside the worktree). */
  cwd: string;
  worktree: string;
  paths: string[];
  message: string;
  /** How long to wait for another git process' index.lock before failing. */
  lockWaitMs?: number;
  /**
   * Called with the commit made, right before the branch moves (the caller writes its intent): a
   * throw leaves the branch where it was.
   */
  beforeMove?: (plan: PathCommitResult) => Promise<void>;
}

export interface PathCommitResult {
  branch: string;
  parent: string | null;
  commit: string;
  files: { status: string; path: string }[];
}

const IN_PROGRESS: [string, string][] = [
  ['MERGE_HEAD', 'a merge'],
  ['rebase-merge', 'a rebase'],
  ['rebase-apply', 'a rebase or am'],
  ['CHERRY_PICK_HEAD', 'a cherry-pick'],
  ['REVERT_HEAD', 'a revert'],
  ['BISECT_LOG', 'a bisect'],
];

/**
 * Commits exactly the named paths onto the worktree's branch, and nothing else:
 *  1. under git's own index.lock for the whole step, so no other git command interleaves;
 *  2. the commit's tree is built in a PRIVATE index (GIT_INDEX_FILE) = parent tree + the named paths
 *     as they are on disk (additions, modifications, deletions), so nothing anyone staged leaks in;
 *  3. the branch moves by compare-and-swap (update-ref NEW OLD);
 *  4. then only those paths' entries of the real index are set to the commit, so `git status` does
 *     not show a revert of it and everything else staged stays staged.
 */
export async function commitPaths(req: PathCommit): Promise<PathCommitResult> {
  // `git add -A --` with no pathspec at all means the whole worktree: an empty list would commit
  // everybody's changes, the very sweep this function exists to prevent.
  if (req.paths.length === 0)
    throw new LanesError('E_USAGE', 'no paths to commit', {
      hint: 'name the paths to commit: lanes commit -m MESSAGE -- PATH…',
    });
  const gitDir = await gitDirOf(req.worktree);
  for (const [marker, what] of IN_PROGRESS) {
    if (existsSync(join(gitDir, marker))) {
      throw new LanesError('E_REPO_STATE', `${what} is in progress in ${req.worktree}`, {
        hint: 'finish or abort it first (git status says how), then commit',
      });
    }
  }
  const branch = await currentBranch(req.worktree);
  if (!branch) {
    throw new LanesError('E_REPO_STATE', `HEAD is detached in ${req.worktree}: there is no branch to commit onto`, {
      hint: 'check out a branch (git switch -c NAME) or start a session with `lanes start --worktree`',
    });
  }
  if (req.message.trim() === '')
    throw new LanesError('E_USAGE', 'the commit message is empty', { hint: 'pass -m MESSAGE or -F FILE' });
  const lock = await IndexLock.acquire(gitDir, req.lockWaitMs ?? 2000);
  const tag = `${process.pid}-${crypto().randomBytes(4).toString('hex')}`;
  const privateIndex = join(gitDir, `lanes-commit-${tag}.index`);
  const stagingIndex = join(gitDir, `lanes-commit-${tag}.next-index`);
  try {
    const parent = await revParse(req.worktree, branch);
    const env = { GIT_INDEX_FILE: privateIndex };
    if (parent) await git(['read-tree', parent], { cwd: req.worktree, env });
    try {
      await git(['add', '-A', '--', ...req.paths], { cwd: req.cwd, env });
    } catch (e) {
      const stderr = String((e as { stderr?: string }).stderr ?? '');
      throw new LanesError(
        'E_USAGE',
        `cannot commit those paths: ${stderr.trim().split('\n')[0] ?? 'git add failed'}`,
        { hint: 'name files or directories that exist, or existed in the last commit (deletions)', cause: e },
      );
    }
    const tree = (await git(['write-tree'], { cwd: req.worktree, env })).trim();
    const parentTree = parent ? await treeOf(req.worktree, parent) : null;
    if (tree === parentTree) {
      throw new LanesError(
        'E_NOT_FOUND',
        `nothing to commit: ${req.paths.join(', ')} has no changes against ${branch.replace(/^refs\/heads\//, '')}`,
        { hint: 'edit the files first, or name the paths you changed' },
      );
    }
    const commit = (
      await git(['commit-tree', tree, ...(parent ? ['-p', parent] : []), '-F', '-'], {
        cwd: req.worktree,
        input: req.message,
      })
    ).trim();
    const files = await diffNames(req.worktree, parentTree, tree);
    await req.beforeMove?.({ branch, parent, commit, files });
    try {
      await git(
        ['update-ref', '-m', 'lanes commit', branch, commit, parent ?? '0000000000000000000000000000000000000000'],
        { cwd: req.worktree },
      );
    } catch (e) {
      throw new LanesError(
        'E_CLAIM_HELD',
        `${branch} moved while committing (another process committed to it); nothing was committed`,
        { hint: 'run the same lanes commit again', cause: e },
      );
    }
    // Only the entries of the files this commit changed follow it; everything else in the index is
    // kept byte for byte (no refresh: re-stat'ing other files while their owners write them is how
    // a stale stat gets recorded). git writes the new index AT the staging path (it locks
    // STAGING.lock and renames over it), so its racy-git timestamps stay true after our rename.
    const info = await indexInfo(req.worktree, commit, files);
    if (!lock.fill(join(gitDir, 'index'), stagingIndex))
      await git(['read-tree', '--empty'], { cwd: req.worktree, env: { GIT_INDEX_FILE: stagingIndex } });
    if (info.length > 0)
      await git(['update-index', '-z', '--index-info'], {
        cwd: req.worktree,
        env: { GIT_INDEX_FILE: stagingIndex },
        input: info,
      });
    lock.commit(stagingIndex);
    return { branch, parent, commit, files };
  } finally {
    lock.release();
    for (const f of [privateIndex, stagingIndex]) {
      rmSync(f, { force: true });
      rmSync(`${f}.lock`, { force: true });
    }
  }
}

/** `--index-info` records (NUL-terminated) setting each changed file to its state in `commit`. */
async function indexInfo(worktree: string, commit: string, files: { status: string; path: string }[]): Promise<Buffer> {
  const present = files.filter((f) => f.status !== 'D').map((f) => f.path);
  const entries = new Map<string, string>();
  if (present.length > 0) {
    const out = await git(['ls-tree', '-r', '-z', '--full-tree', commit, '--', ...present], { cwd: worktree });
    for (const rec of out.split('\0').filter(Boolean)) {
      const tab = rec.indexOf('\t');
      const [mode, , sha] = rec.slice(0, tab).split(' ');
      entries.set(rec.slice(tab + 1), `${mode} ${sha}\t${rec.slice(tab + 1)}\0`);
    }
  }
  let out = '';
  for (const f of files) out += f.status === 'D' ? `0 ${'0'.repeat(40)}\t${f.path}\0` : (entries.get(f.path) ?? '');
  return Buffer.from(out, 'utf8');
}
