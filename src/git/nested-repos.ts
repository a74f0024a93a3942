import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { git } from './run.js';

/** A part of a worktree that a snapshot cannot hold, and why. */
export interface SkippedPath {
  /** Relative to the worktree, `/`-separated; a directory ends in `/`. */
  path: string;
  why: 'nested repository' | 'submodule changes';
}

/**
 * What `git add -A` cannot take from this worktree: untracked nested git repositories (git lists
 * them, under -o, as a directory with a trailing slash; one without a commit makes `add -A` fail,
 * one with commits would go in as a bare commit id, its files unsaved) and submodules with changes
 * inside them (a snapshot records a submodule only by its checked-out commit). Read with the
 * capture's private index, so the real one is not refreshed.
 */
export async function unsnapshottable(
  worktree: string,
  env: Record<string, string>,
  /** The untracked paths a `git status --untracked-files=all` just listed (it lists nested repositories as ls-files -o does). */
  untracked?: string[],
): Promise<SkippedPath[]> {
  const skipped: SkippedPath[] = [];
  const others =
    untracked ?? (await git(['ls-files', '-o', '--exclude-standard', '-z'], { cwd: worktree, env })).split('\0');
  for (const p of others) if (p.endsWith('/')) skipped.push({ path: p, why: 'nested repository' });
  // Only a worktree with submodules pays for a status; its porcelain v2 field 3 is S<c><m><u>.
  if (existsSync(join(worktree, '.gitmodules'))) {
    const out = await git(['status', '--porcelain=v2', '-z', '--untracked-files=no', '--ignore-submodules=none'], {
      cwd: worktree,
      env,
    });
    for (const rec of out.split('\0')) {
      const f = rec.split(' ');
      if ((f[0] === '1' || f[0] === '2') && f[2]?.startsWith('S') && (f[2][2] !== '.' || f[2][3] !== '.'))
        skipped.push({ path: f.slice(f[0] === '1' ? 8 : 9).join(' '), why: 'submodule changes' });
    }
  }
  return skipped;
}

/** `git add -A` arguments that leave the nested repositories out (pathspec magic, each path literal). */
export function addAllExcept(nested: SkippedPath[]): string[] {
  const dirs = nested.filter((s) => s.why === 'nested repository');
  if (dirs.length === 0) return ['add', '-A'];
  return ['add', '-A', '--', '.', ...dirs.map((d) => `:(exclude,literal)${d.path}`)];
}
