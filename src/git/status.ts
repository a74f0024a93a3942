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

/** A worktree's uncommitted changes and the commit checked out, as one `git status` saw them together. */
export interface StatusWithHead {
  /** HEAD's commit (null before the first commit). */
  head: string | null;
  /** As status() lists them (XY as porcelain v1 writes it: ' ' where v2 writes '.'). */
  entries: StatusEntry[];
}

/**
 * status() and HEAD in one git process (porcelain v2's `# branch.oid` header): the sweep runs it
 * in every worktree. --no-ahead-behind: a branch with an upstream is not walked for the counts.
 */
export async function statusWithHead(worktree: string): Promise<StatusWithHead> {
  const out = await git(
    ['status', '--porcelain=v2', '-z', '--branch', '--no-ahead-behind', '--untracked-files=all', '--no-renames'],
    { cwd: worktree },
  );
  return parseStatusV2(out);
}

/** Porcelain v2 -z: headers `# …`, `1 XY … path`, `2 XY … path\0orig`, `u XY … path`, `? path`, `! path`. */
export function parseStatusV2(out: string): StatusWithHead {
  let head: string | null = null;
  const entries: StatusEntry[] = [];
  const recs = out.split('\0');
  for (let i = 0; i < recs.length; i++) {
    const rec = recs[i] ?? '';
    const kind = rec[0];
    if (kind === '#') {
      const m = /^# branch\.oid ([0-9a-f]+)$/.exec(rec);
      if (m) head = m[1] ?? null;
    } else if (kind === '?') entries.push({ code: '??', path: rec.slice(2) });
    else if (kind === '1' || kind === '2' || kind === 'u') {
      // The path follows a fixed number of space-separated fields (8, 9, 10); it may hold spaces.
      const fields = kind === '1' ? 8 : kind === '2' ? 9 : 10;
      let at = 0;
      for (let f = 0; f < fields && at >= 0; f++) at = rec.indexOf(' ', at + 1);
      const code = rec.slice(2, 4).replace(/\./g, ' ');
      if (kind === '2') entries.push({ code, path: rec.slice(at + 1), from: recs[++i] ?? '' });
      else entries.push({ code, path: rec.slice(at + 1) });
    }
  }
  return { head, entries };
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
