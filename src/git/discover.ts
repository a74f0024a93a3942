import { readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { RepoInfo } from './types.js';

/**
 * The repository and worktree of `cwd` found by reading `.git` the way git does, without running
 * git: the agent hooks answer inside every tool call and a git process costs more than the rest of
 * the answer. Returns undefined ("ask git") whenever git's own answer could differ: GIT_DIR,
 * GIT_WORK_TREE, GIT_COMMON_DIR or GIT_CEILING_DIRECTORIES set, or a `.git` that is neither a
 * directory nor a well-formed `gitdir:` file. null means: no repository above cwd.
 *
 * Matches `git rev-parse --path-format=absolute --git-common-dir --show-toplevel` (both real
 * paths); test/git/discover.test.ts compares the two on main and linked worktrees, subdirectories,
 * submodules and symlinked paths.
 */
export function discoverRepo(
  cwd: string,
  env: Record<string, string | undefined> = process.env,
): RepoInfo | null | undefined {
  if (env['GIT_DIR'] || env['GIT_WORK_TREE'] || env['GIT_COMMON_DIR'] || env['GIT_CEILING_DIRECTORIES'])
    return undefined;
  let dir: string;
  try {
    dir = realpathSync(cwd);
  } catch {
    return undefined;
  }
  for (;;) {
    const dotGit = join(dir, '.git');
    let isDir: boolean | null = null;
    try {
      const st = statSync(dotGit);
      // Owned by someone else: git may refuse it (safe.directory); let git decide.
      if (process.getuid && st.uid !== process.getuid()) return undefined;
      isDir = st.isDirectory();
    } catch {
      isDir = null;
    }
    if (isDir === true) return { commonDir: realpathSync(dotGit), worktreeRoot: dir };
    if (isDir === false) return fromGitFile(dotGit, dir);
    // A bare repository or the inside of a .git directory: git answers differently there.
    if (dir.endsWith('/.git') || dir.includes('/.git/')) return undefined;
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

function fromGitFile(dotGit: string, worktreeRoot: string): RepoInfo | undefined {
  try {
    const m = /^gitdir: (.+)$/m.exec(readFileSync(dotGit, 'utf8'));
    if (!m?.[1]) return undefined;
    const gitDir = resolve(worktreeRoot, m[1].trim());
    let commonDir = gitDir;
    try {
      const common = readFileSync(join(gitDir, 'commondir'), 'utf8').trim();
      commonDir = isAbsolute(common) ? common : resolve(gitDir, common);
    } catch {
      // No commondir: a submodule or a separate git dir; the git dir is the common dir.
    }
    return { commonDir: realpathSync(commonDir), worktreeRoot };
  } catch {
    return undefined;
  }
}

/**
 * The git directory of a worktree's root (`.git` itself, or where its `gitdir:` file points), read
 * the way git reads it; undefined ("ask git": `git rev-parse --absolute-git-dir`) whenever git's
 * answer could differ, as for discoverRepo. The real path, as git prints it.
 */
export function gitDirOfRoot(
  worktreeRoot: string,
  env: Record<string, string | undefined> = process.env,
): string | undefined {
  if (env['GIT_DIR'] || env['GIT_WORK_TREE'] || env['GIT_COMMON_DIR']) return undefined;
  const dotGit = join(worktreeRoot, '.git');
  try {
    const st = statSync(dotGit);
    if (process.getuid && st.uid !== process.getuid()) return undefined;
    if (st.isDirectory()) return realpathSync(dotGit);
    const m = /^gitdir: (.+)$/m.exec(readFileSync(dotGit, 'utf8'));
    return m?.[1] ? realpathSync(resolve(worktreeRoot, m[1].trim())) : undefined;
  } catch {
    return undefined;
  }
}
