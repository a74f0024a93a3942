import { discoverRepo } from './discover.js';
import { GitError, git } from './run.js';

export interface RepoInfo {
  /** Absolute git common dir: the same for every worktree of one repository, so it identifies the repository. */
  commonDir: string;
  /** Absolute root of the worktree containing cwd. */
  worktreeRoot: string;
}

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
