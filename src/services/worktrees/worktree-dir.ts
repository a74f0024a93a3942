import { basename, dirname, join } from 'node:path';
import { LanesError } from '../../core/errors.js';
import { listWorktrees } from '../../git/worktree.js';

/** `<repo-parent>/<repo-name>.lanes`: beside the main worktree, never inside it. */
export async function lanesWorktreeDir(cwd: string, commonDir?: string): Promise<string> {
  // The usual layout: the common dir is <main worktree>/.git, so no git call is needed.
  if (commonDir && basename(commonDir) === '.git') {
    const main = dirname(commonDir);
    return join(dirname(main), `${basename(main)}.lanes`);
  }
  const [main] = await listWorktrees(cwd);
  if (!main) throw new LanesError('E_GIT', `no worktree found for ${cwd}`);
  return join(dirname(main.path), `${basename(main.path)}.lanes`);
}
