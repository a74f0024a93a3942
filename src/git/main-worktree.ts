import { existsSync } from 'node:fs';
import { basename, dirname } from 'node:path';

/**
 * A repository's main worktree, from its git common dir (`/repo/.git` → `/repo`): where a restore
 * or a fix is run from without entering another session's worktree. Null for a bare repository
 * (or a common dir not named .git) and for one whose directory is gone.
 */
export function mainWorktreeOf(commonDir: string | null): string | null {
  if (!commonDir || basename(commonDir) !== '.git') return null;
  const dir = dirname(commonDir);
  return existsSync(dir) ? dir : null;
}
