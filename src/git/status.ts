import { git } from './run.js';

export interface StatusEntry {
  /** Two-letter XY code of `git status --porcelain`: index and worktree state; '??' untracked. */
  code: string;
  path: string;
  /** For renames and copies, the path before. */
  from?: string;
}

/** Uncommitted changes of a worktree (tracked changes, deletions, untracked files that are not ignored). */
export async function status(worktree: string): Promise<StatusEntry[]> {
  const out = await git(['status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames'], { cwd: worktree });
  const entries: StatusEntry[] = [];
  for (const rec of out.split('\0')) {
    if (rec.length < 4) continue;
    entries.push({ code: rec.slice(0, 2), path: rec.slice(3) });
  }
  return entries;
}

/** How many commits `tip` has that `base` does not (`git rev-list --count base..tip`). */
export async function commitsAhead(cwd: string, base: string, tip = 'HEAD'): Promise<number> {
  return Number((await git(['rev-list', '--count', `${base}..${tip}`, '--'], { cwd })).trim());
}
