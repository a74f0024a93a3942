import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { slugify } from '../../core/slug.js';
import { git } from '../../git/run.js';
import { createRef } from '../../git/snapshot.js';
import { ignoredPaths } from '../../git/status.js';

// What a worktree holds that neither its branch nor a snapshot keeps, checked right before it is
// removed (remove-safely.ts): a git operation half done, submodules whose git data lives in the
// worktree's git dir, ignored files that are not rebuildable, commits on a detached HEAD.

const IN_PROGRESS: [string, string][] = [
  ['rebase-merge', 'a rebase'],
  ['rebase-apply', 'a rebase or git am'],
  ['MERGE_HEAD', 'a merge'],
  ['CHERRY_PICK_HEAD', 'a cherry-pick'],
  ['REVERT_HEAD', 'a revert'],
  ['BISECT_LOG', 'a bisect'],
];

/** The git operation left half done in this worktree (its git dir), or null. */
export function operationInProgress(gitDir: string): string | null {
  for (const [file, what] of IN_PROGRESS) if (existsSync(join(gitDir, file))) return what;
  return null;
}

/** Submodules keep their repositories in the worktree's git dir (modules/): removed with it, unpushed commits and all. */
export function hasSubmoduleRepos(gitDir: string): boolean {
  return existsSync(join(gitDir, 'modules'));
}

const sameFile = (a: string, b: string): boolean => {
  try {
    return readFileSync(a).equals(readFileSync(b));
  } catch {
    return false;
  }
};

/**
 * The ignored files and directories of `worktree` that removal would delete and nothing keeps:
 * not a rebuildable directory (`reclaim`), not a copy identical to the main worktree's
 * (.worktreeinclude copies: .env and the like). Collapsed as git lists them (`dir/`).
 */
export async function ignoredUnsaved(worktree: string, main: string, reclaim: readonly string[]): Promise<string[]> {
  const names = new Set(reclaim);
  return (await ignoredPaths(worktree)).filter((rel) => {
    if (rel.endsWith('/')) return !names.has(basename(rel.slice(0, -1)));
    return !sameFile(join(worktree, rel), join(main, rel));
  });
}

/**
 * A detached HEAD whose commits no ref holds would be unreachable once the worktree (and its
 * HEAD's reflog) is gone: kept under refs/lanes/kept/<worktree>[-n]. The ref, or null when none was needed.
 */
export async function keepDetachedHead(main: string, worktree: string, head: string): Promise<string | null> {
  const holders = (
    await git(['for-each-ref', '--count=1', '--contains', head, '--format=%(refname)'], { cwd: main })
  ).trim();
  if (holders) return null;
  const stem = `refs/lanes/kept/${slugify(basename(worktree), 'worktree')}`;
  for (let n = 1; n < 1000; n++) {
    const ref = n === 1 ? stem : `${stem}-${n}`;
    if (await createRef(main, ref, head, `lanes: the detached HEAD of ${worktree}, kept as its worktree goes`))
      return ref;
  }
  throw new Error(`no free ref under ${stem} to keep the detached HEAD ${head}`);
}
