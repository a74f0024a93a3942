import { git } from './run.js';

export interface WorktreeEntry {
  path: string;
  /** Commit checked out, or null in a repository without commits. */
  head: string | null;
  /** Full ref name (refs/heads/x), or null when detached. */
  branch: string | null;
  bare: boolean;
  locked: boolean;
  /** Why it is locked, as `git worktree lock --reason` said ('' without a reason). */
  lockReason: string | null;
  /** The directory is gone (git worktree prune would remove it). */
  prunable: boolean;
}

/** Every worktree of the repository of `cwd`, the main one first (`git worktree list --porcelain -z`). */
export async function listWorktrees(cwd: string): Promise<WorktreeEntry[]> {
  // -z (git >= 2.36) keeps paths with newlines intact.
  const out = await git(['worktree', 'list', '--porcelain', '-z'], { cwd });
  const entries: WorktreeEntry[] = [];
  let cur: WorktreeEntry | null = null;
  for (const field of out.split('\0')) {
    if (field === '') {
      if (cur) entries.push(cur);
      cur = null;
      continue;
    }
    const sp = field.indexOf(' ');
    const key = sp < 0 ? field : field.slice(0, sp);
    const value = sp < 0 ? '' : field.slice(sp + 1);
    if (key === 'worktree')
      cur = { path: value, head: null, branch: null, bare: false, locked: false, lockReason: null, prunable: false };
    else if (!cur) continue;
    else if (key === 'HEAD') cur.head = /^0+$/.test(value) ? null : value;
    else if (key === 'branch') cur.branch = value;
    else if (key === 'bare') cur.bare = true;
    else if (key === 'locked') {
      cur.locked = true;
      cur.lockReason = value;
    } else if (key === 'prunable') cur.prunable = true;
  }
  if (cur) entries.push(cur);
  return entries;
}

/** Creates a worktree on a NEW branch (never reuses one: `-b` fails if it exists). */
export async function addWorktree(cwd: string, path: string, branch: string, base: string): Promise<void> {
  await git(['worktree', 'add', '-b', branch, '--', path, base], { cwd });
}

/** Checks an EXISTING branch out in a new worktree (a session going on where its predecessor's worktree was removed). */
export async function addWorktreeOf(cwd: string, path: string, branch: string): Promise<void> {
  await git(['worktree', 'add', '--', path, branch], { cwd });
}

/**
 * Removes a worktree; without force git itself refuses one with modified or untracked files.
 * Callers pass force only after proving the work is saved in a snapshot.
 */
export async function removeWorktree(cwd: string, path: string, force = false, locked = false): Promise<void> {
  // A locked worktree takes the force twice (git's rule); lanes locks the one it is removing.
  const f = locked ? ['--force', '--force'] : force ? ['--force'] : [];
  await git(['worktree', 'remove', ...f, '--', path], { cwd });
}

export async function pruneWorktrees(cwd: string): Promise<void> {
  await git(['worktree', 'prune'], { cwd });
}

/** The worktree's own git directory (.git/worktrees/<name> for linked worktrees): its index, index.lock, MERGE_HEAD live there. */
export async function gitDirOf(worktree: string): Promise<string> {
  return (await git(['rev-parse', '--absolute-git-dir'], { cwd: worktree })).trim();
}

/** The worktree's git dir and HEAD commit in one git call (HEAD null in a repository without commits). */
export async function gitDirAndHead(worktree: string): Promise<{ gitDir: string; head: string | null }> {
  try {
    const [gitDir = '', head = ''] = (await git(['rev-parse', '--absolute-git-dir', 'HEAD'], { cwd: worktree })).split(
      '\n',
    );
    return { gitDir, head: head || null };
  } catch {
    return { gitDir: await gitDirOf(worktree), head: null };
  }
}

export async function revParse(cwd: string, rev: string): Promise<string | null> {
  try {
    return (
      (await git(['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`], { cwd })).trim() || null
    );
  } catch {
    return null;
  }
}

/** The branch checked out in `cwd` (refs/heads/x), or null when HEAD is detached. */
export async function currentBranch(cwd: string): Promise<string | null> {
  try {
    return (await git(['symbolic-ref', '-q', 'HEAD'], { cwd })).trim() || null;
  } catch {
    return null;
  }
}

export async function branchExists(cwd: string, branch: string): Promise<boolean> {
  try {
    await git(['show-ref', '--verify', '--quiet', `refs/heads/${branch}`], { cwd });
    return true;
  } catch {
    return false;
  }
}

/** Whether `ref` names a valid new branch name for git. */
export async function isValidBranchName(cwd: string, name: string): Promise<boolean> {
  try {
    await git(['check-ref-format', '--branch', name], { cwd });
    return true;
  } catch {
    return false;
  }
}

export async function deleteBranch(cwd: string, branch: string, force: boolean): Promise<void> {
  await git(['branch', force ? '-D' : '-d', '--', branch], { cwd });
}

/** Whether `commit` is contained in (merged into) `into`. */
export async function isAncestor(cwd: string, commit: string, into: string): Promise<boolean> {
  try {
    await git(['merge-base', '--is-ancestor', commit, into], { cwd });
    return true;
  } catch {
    return false;
  }
}

/** Whether branch `branch` exists and is contained in branch `into` (both short names). */
export async function branchMerged(cwd: string, branch: string, into: string): Promise<boolean> {
  const tip = await revParse(cwd, `refs/heads/${branch}`);
  return tip !== null && (await isAncestor(cwd, tip, `refs/heads/${into}`));
}

/** The repository's main branch: origin's HEAD if known, else main, else master, else the main worktree's branch. */
export async function defaultBranch(cwd: string): Promise<string | null> {
  try {
    const origin = (await git(['symbolic-ref', '-q', '--short', 'refs/remotes/origin/HEAD'], { cwd })).trim();
    if (origin) return origin.replace(/^origin\//, '');
  } catch {
    /* no remote HEAD */
  }
  for (const name of ['main', 'master']) if (await branchExists(cwd, name)) return name;
  const [main] = await listWorktrees(cwd);
  return main?.branch?.replace(/^refs\/heads\//, '') ?? null;
}
