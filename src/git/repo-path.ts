import { realpathSync } from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';
import { relativeTo } from '../core/relative-to.js';
import { repoInfo } from './repo.js';
import type { RepoInfo } from './repo.js';

export interface RepoPath {
  repo: RepoInfo;
  /** Relative to the worktree root, with '/' separators. */
  rel: string;
}

/**
 * Which repository and worktree a (possibly not yet existing) file belongs to, and its path in
 * it. The nearest existing ancestor is resolved (symlinks included), the missing rest appended.
 * null: outside any repository, or inside .git itself.
 */
export async function locateInRepo(path: string, cache = new Map<string, RepoInfo | null>()): Promise<RepoPath | null> {
  let existing = path;
  const missing: string[] = [];
  let real: string | null = null;
  for (let i = 0; i < 4096 && real === null; i++) {
    try {
      real = realpathSync(existing);
    } catch {
      const parent = dirname(existing);
      if (parent === existing) return null;
      missing.unshift(basename(existing));
      existing = parent;
    }
  }
  if (real === null) return null;
  const full = missing.length ? join(real, ...missing) : real;
  const dir = missing.length ? real : dirname(real);
  let repo = cache.get(dir);
  if (repo === undefined) {
    repo = await repoInfo(dir);
    cache.set(dir, repo);
  }
  if (!repo) return null;
  const rel = relativeTo(repo.worktreeRoot, full);
  if (!rel || rel === '..' || rel.startsWith(`..${sep}`) || rel === '.git' || rel.startsWith(`.git${sep}`)) return null;
  return { repo, rel: rel.split(sep).join('/') };
}
