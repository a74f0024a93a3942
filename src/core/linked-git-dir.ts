import { readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';

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
