import { discoverRepo } from './discover.js';
import { GitError, git } from './run.js';
import type { RepoInfo } from './types.js';

// Callers outside src/git import the type from here, next to repoInfo().
export type { RepoInfo };

/** The repository and worktree of `cwd`, or null when cwd is not inside a git worktree. */
export async function repoInfo(cwd: string): Promise<RepoInfo | null> {
  const found = discoverRepo(cwd);
  if (found !== undefined) return found;
  try {
    // --path-format=absolute (git ≥ 2.31) makes --git-common-dir absolute even from a subdirectory.
    const out = await git(['rev-parse', '--path-format=absolute', '--git-common-dir', '--show-toplevel'], { cwd });
    const [commonDir, worktreeRoot] = out.split('\n');
    if (!commonDir || !worktreeRoot) return null;
    return { commonDir, worktreeRoot };
  } catch (e) {
    // Exit 128: "not a git repository" (or a bare repository without a worktree).
    if (e instanceof GitError && e.exit === 128) return null;
    throw e;
  }
}
