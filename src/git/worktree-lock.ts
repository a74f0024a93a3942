import { git } from './run.js';

export { linkedGitDir } from '../core/linked-git-dir.js';

/**
 * Locks a worktree (`git worktree lock --reason`): `git worktree remove` and `prune` then leave it
 * alone. False when it was already locked (by someone else, or another run of lanes).
 */
export async function lockWorktree(cwd: string, path: string, reason: string): Promise<boolean> {
  try {
    await git(['worktree', 'lock', '--reason', reason, '--', path], { cwd });
    return true;
  } catch {
    return false;
  }
}

export async function unlockWorktree(cwd: string, path: string): Promise<void> {
  await git(['worktree', 'unlock', '--', path], { cwd });
}
