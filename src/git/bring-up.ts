import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { git, GitError } from './run.js';
import { gitDirOf } from './worktree.js';

// Bringing a session's branch onto the target's current tip in the session's own worktree (the
// landing queue, issue 49 item 3): replayed on it (rebase) or with the target merged in. Only
// called once `git merge-tree` found the two merge cleanly, so a conflict here is one commit of a
// replay conflicting on its own; it is undone at once (nothing is left in the middle).

export type BringUp = { ok: true; tip: string } | { ok: false; why: string; conflicts: string[] };

/**
 * git writes new commits here (the replayed ones, the merge): a committer is needed even where
 * the machine has no git identity (an empty HOME); the authors stay who they were.
 */
async function committerEnv(cwd: string): Promise<Record<string, string>> {
  try {
    await git(['var', 'GIT_COMMITTER_IDENT'], { cwd });
    return {};
  } catch {
    return { GIT_COMMITTER_NAME: 'lanes', GIT_COMMITTER_EMAIL: 'lanes@localhost' };
  }
}

/** Replays the worktree's branch on `onto`, or merges `onto` into it; undone when it stops half-way. */
export async function bringOnto(worktree: string, onto: string, strategy: 'rebase' | 'merge'): Promise<BringUp> {
  const env = { ...(await committerEnv(worktree)), GIT_EDITOR: 'true', GIT_SEQUENCE_EDITOR: 'true' };
  const args =
    strategy === 'rebase'
      ? ['rebase', '--no-autostash', '--no-update-refs', onto]
      : ['merge', '--no-ff', '--no-edit', '--no-autostash', onto];
  try {
    await git(args, { cwd: worktree, env });
  } catch (e) {
    if (!(e instanceof GitError)) throw e;
    const conflicts = await unmerged(worktree);
    await abortInProgress(worktree);
    const said = (e.stderr || e.message).split('\n').filter((l) => l.trim() && !l.startsWith('hint:'));
    const why = said.slice(-2).join(' ');
    return { ok: false, why: `git ${args[0]} stopped: ${why}`, conflicts };
  }
  return { ok: true, tip: (await git(['rev-parse', 'HEAD'], { cwd: worktree })).trim() };
}

async function unmerged(worktree: string): Promise<string[]> {
  const out = await git(['diff', '--name-only', '--diff-filter=U', '-z'], { cwd: worktree }).catch(() => '');
  return [...new Set(out.split('\0').filter(Boolean))];
}

/** A rebase or merge left in the middle (a kill): aborted, the branch and files as before it began. */
export async function abortInProgress(worktree: string): Promise<'rebase' | 'merge' | null> {
  const dir = await gitDirOf(worktree);
  if (existsSync(join(dir, 'rebase-merge')) || existsSync(join(dir, 'rebase-apply'))) {
    await git(['rebase', '--abort'], { cwd: worktree });
    return 'rebase';
  }
  if (existsSync(join(dir, 'MERGE_HEAD'))) {
    await git(['merge', '--abort'], { cwd: worktree });
    return 'merge';
  }
  return null;
}

/**
 * The worktree's branch back at `tip` (a check failed, a run was killed after the bring-up): files
 * the bring-up changed go back; a change made since in the worktree stops it (git reset --keep).
 */
export async function restoreBranch(worktree: string, tip: string): Promise<void> {
  await git(['reset', '--keep', tip], { cwd: worktree });
}
