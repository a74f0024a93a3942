import { GitError, git } from './run.js';

export interface MergePreview {
  /** Tree of the merge result (with conflict markers where it conflicts). */
  tree: string;
  /** Files with textual conflicts; empty when the merge is clean. */
  conflicts: string[];
}

/**
 * What merging two commits would give, computed in the object store only (`git merge-tree
 * --write-tree`, git >= 2.38): no worktree, index or ref is touched. Exit 1 means conflicts.
 */
export async function previewMerge(cwd: string, ours: string, theirs: string): Promise<MergePreview> {
  const args = ['merge-tree', '--write-tree', '--name-only', '--no-messages', '-z', ours, theirs];
  let out: string;
  try {
    out = await git(args, { cwd });
  } catch (e) {
    if (!(e instanceof GitError) || e.exit !== 1) throw e;
    out = e.stdout;
  }
  const [tree = '', ...files] = out.split('\0').filter(Boolean);
  return { tree, conflicts: [...new Set(files)] };
}

export async function mergeBase(cwd: string, a: string, b: string): Promise<string | null> {
  try {
    return (await git(['merge-base', a, b], { cwd })).trim() || null;
  } catch {
    return null;
  }
}

/** "+added -removed" per file between two commits or trees, limited to `paths`. */
export async function diffStat(
  cwd: string,
  from: string,
  to: string,
  paths: string[],
): Promise<{ path: string; added: number; removed: number }[]> {
  if (paths.length === 0) return [];
  const out = await git(['diff', '--numstat', '-z', '--no-renames', from, to, '--', ...paths], { cwd });
  const result: { path: string; added: number; removed: number }[] = [];
  for (const rec of out.split('\0').filter(Boolean)) {
    const [added = '0', removed = '0', ...rest] = rec.split('\t');
    result.push({ path: rest.join('\t'), added: Number(added) || 0, removed: Number(removed) || 0 });
  }
  return result;
}
