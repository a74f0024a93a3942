import { copyFileSync, rmSync, statSync, utimesSync } from 'node:fs';
import { crypto } from '../core/builtins.js';
import { join } from 'node:path';
import { indexCopyMtime } from './index-lock.js';
import { git } from './run.js';
import { addAllExcept, unsnapshottable } from './nested-repos.js';
import type { SkippedPath } from './nested-repos.js';
import { gitDirOfRoot } from './discover.js';
import { gitDirAndHead, gitDirOf } from './worktree.js';

// Snapshot commits are private (under refs/lanes/), so they carry a fixed identity: a snapshot must
// work even where user.name is not configured, and must never pass for the user's own commit.
const SNAPSHOT_IDENTITY = {
  GIT_AUTHOR_NAME: 'lanes snapshot',
  GIT_AUTHOR_EMAIL: 'lanes@localhost',
  GIT_COMMITTER_NAME: 'lanes snapshot',
  GIT_COMMITTER_EMAIL: 'lanes@localhost',
};

export interface Captured {
  /** HEAD of the worktree when captured (null in a repository without commits). */
  head: string | null;
  /** HEAD's tree (the empty tree without commits): a capture equal to it has nothing to save. */
  base: string;
  /** Tree of the whole working state: tracked changes, deletions, untracked files that are not ignored. */
  tree: string;
  /** What the tree could not hold (nested repositories, changes inside submodules). */
  skipped: SkippedPath[];
}

/** What a caller that has just run `git status` in the worktree knows already (the sweep). */
export interface CaptureHints {
  /** HEAD as that status saw it (porcelain v2's branch.oid; null before the first commit). */
  head: string | null;
  /** HEAD's tree, when known. */
  headTree?: string;
  /** The untracked paths that status listed: the nested repositories are those ending in `/`. */
  untracked: string[];
}

/**
 * Captures a worktree's working state as a tree without touching its index, files or branch: a
 * private copy of the index (GIT_INDEX_FILE) takes `git add -A`, then `write-tree`. Starting from a
 * copy of the real index reuses its stat cache, so unchanged files are not even read; the copy keeps
 * the index's mtime, which git's racy-git check needs to be trusted (see indexCopyMtime).
 *
 * With hints (a `git status` just run there), HEAD and the nested repositories are taken from it
 * and the git directory is read from `.git`: add and write-tree are then the only git processes.
 */
export async function captureWorktree(worktree: string, hints?: CaptureHints): Promise<Captured> {
  const { gitDir, head, base } = hints ? await fromHints(worktree, hints) : await gitDirHeadAndTree(worktree);
  const index = join(gitDir, `lanes-capture-${process.pid}-${crypto().randomBytes(4).toString('hex')}.index`);
  try {
    try {
      // Stat before copying: should another git replace the index in between, the copy is newer
      // than the stamp, the safe direction (more entries count as racy and get their contents read).
      const real = join(gitDir, 'index');
      const st = statSync(real);
      copyFileSync(real, index);
      utimesSync(index, st.atimeMs / 1000, indexCopyMtime(st));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    const env = { GIT_INDEX_FILE: index };
    const skipped = await unsnapshottable(worktree, env, hints?.untracked);
    await git(addAllExcept(skipped), { cwd: worktree, env, pathspecMagic: skipped.length > 0 });
    const tree = (await git(['write-tree'], { cwd: worktree, env })).trim();
    return { head, base, tree, skipped };
  } finally {
    rmSync(index, { force: true });
    rmSync(`${index}.lock`, { force: true });
  }
}

/** The git dir, HEAD and HEAD's tree in one git call (HEAD null, the empty tree, before a first commit). */
async function gitDirHeadAndTree(worktree: string): Promise<{ gitDir: string; head: string | null; base: string }> {
  try {
    const out = await git(['rev-parse', '--absolute-git-dir', 'HEAD', 'HEAD^{tree}'], { cwd: worktree });
    const [gitDir = '', head = '', tree = ''] = out.split('\n');
    if (head && tree) return { gitDir, head, base: tree };
  } catch {
    // no commit yet: HEAD does not resolve
  }
  return { ...(await gitDirAndHead(worktree)), base: EMPTY_TREE };
}

async function fromHints(
  worktree: string,
  hints: CaptureHints,
): Promise<{ gitDir: string; head: string | null; base: string }> {
  const gitDir = gitDirOfRoot(worktree) ?? (await gitDirOf(worktree));
  const base = hints.head ? (hints.headTree ?? (await treeOf(worktree, hints.head))) : EMPTY_TREE;
  return { gitDir, head: hints.head, base };
}

export async function commitTree(cwd: string, tree: string, parent: string | null, message: string): Promise<string> {
  const args = ['commit-tree', tree, ...(parent ? ['-p', parent] : []), '-F', '-'];
  return (await git(args, { cwd, env: SNAPSHOT_IDENTITY, input: message })).trim();
}

export async function treeOf(cwd: string, rev: string): Promise<string> {
  return (await git(['rev-parse', '--verify', `${rev}^{tree}`], { cwd })).trim();
}

/** Creates `ref` only if it does not exist yet (compare-and-swap against the zero id). */
export async function createRef(cwd: string, ref: string, commit: string, reason: string): Promise<boolean> {
  try {
    await git(['update-ref', '-m', reason, ref, commit, '0000000000000000000000000000000000000000'], { cwd });
    return true;
  } catch {
    return false;
  }
}

export interface RefEntry {
  ref: string;
  commit: string;
  /** Unix seconds of the commit. */
  time: number;
  parent: string | null;
  tree: string;
  subject: string;
}

/** The refs under `prefix` (under any of several: one process for all). */
export async function listRefs(cwd: string, prefix: string | string[]): Promise<RefEntry[]> {
  const prefixes = typeof prefix === 'string' ? [prefix] : prefix;
  if (prefixes.length === 0) return [];
  const out = await git(
    [
      'for-each-ref',
      '--format=%(refname)%00%(objectname)%00%(committerdate:unix)%00%(parent)%00%(tree)%00%(subject)',
      ...prefixes,
    ],
    { cwd },
  );
  return out
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [ref = '', commit = '', time = '0', parent = '', tree = '', subject = ''] = line.split('\0');
      return { ref, commit, time: Number(time), parent: parent.split(' ')[0] || null, tree, subject };
    });
}

export const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

/** Files that differ between two trees or commits (null: the empty tree), with status letters. */
export async function diffNames(
  cwd: string,
  from: string | null,
  to: string,
): Promise<{ status: string; path: string }[]> {
  const base = from ?? EMPTY_TREE;
  const out = await git(['diff-tree', '-r', '-z', '--no-renames', '--name-status', base, to], { cwd });
  const parts = out.split('\0');
  const result: { status: string; path: string }[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const status = parts[i];
    const path = parts[i + 1];
    if (status && path !== undefined) result.push({ status, path });
  }
  return result;
}
