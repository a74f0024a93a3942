import { readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { git } from './run.js';

/**
 * The private git directory of a linked worktree (`<common dir>/worktrees/<name>`), read from the
 * worktree's `.git` file without running git; null for a main worktree (`.git` is a directory) or
 * a path that is no worktree.
 */
export function linkedGitDir(worktree: string): string | null {
  let text: string;
  try {
    text = readFileSync(join(worktree, '.git'), 'utf8');
  } catch {
    return null;
  }
  const m = /^gitdir: (.+)$/m.exec(text);
  if (!m) return null;
  const dir = m[1]!.trim();
  return isAbsolute(dir) ? dir : resolve(worktree, dir);
}

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
