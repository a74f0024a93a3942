import { relative, sep } from 'node:path';
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

/**
 * What git ignores in a worktree, as `git ls-files --others --ignored --exclude-standard
 * --directory` lists it: repository-relative, an ignored directory once and collapsed (`dir/`,
 * only when nothing in it is tracked).
 */
export async function ignoredPaths(worktree: string): Promise<string[]> {
  const out = await git(['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory'], {
    cwd: worktree,
  });
  return out.split('\0').filter(Boolean);
}

/** Those of `files` (absolute, inside `worktree`) that git does not track there. */
export async function untrackedOf(worktree: string, files: string[]): Promise<string[]> {
  if (files.length === 0) return [];
  // Relative to the worktree both ways (ls-files prints paths relative to its cwd), so a symlinked
  // temp directory compares as it was given; -z: names as they are; literal pathspecs (run.ts).
  const rel = files.map((f) => relative(worktree, f).split(sep).join('/'));
  const tracked = new Set((await git(['ls-files', '-z', '--', ...rel], { cwd: worktree })).split('\0').filter(Boolean));
  return files.filter((_, i) => !tracked.has(rel[i]!));
}

/**
 * Whether the index of `cwd` holds exactly `rev`'s tree (nothing staged on top), for all paths or
 * only for `paths`: git's own check, `diff-index --cached --quiet` (exit 1 when they differ).
 */
export async function indexMatches(cwd: string, rev: string, paths: string[] = []): Promise<boolean> {
  try {
    await git(['diff-index', '--cached', '--quiet', rev, '--', ...paths], { cwd });
    return true;
  } catch {
    return false;
  }
}
