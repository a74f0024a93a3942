import { mergeBase } from './merge.js';
import { diffNames } from './snapshot.js';
import { status } from './status.js';
import { defaultBranch, revParse } from './worktree.js';

/**
 * Every path a worktree has changed and not landed: uncommitted changes (untracked files
 * included) and what its branch changed since it left the main branch. Used at the end of an
 * agent's turn to correct the session's edited-paths record, which the after-edit hooks alone
 * cannot keep complete (shell commands, generators and people change files too).
 */
export async function changedNotLanded(worktree: string): Promise<string[]> {
  const paths = new Set((await status(worktree)).map((e) => e.path));
  const head = await revParse(worktree, 'HEAD');
  const main = await defaultBranch(worktree);
  if (head && main) {
    const base = await mergeBase(worktree, head, `refs/heads/${main}`);
    if (base && base !== head) for (const f of await diffNames(worktree, base, head)) paths.add(f.path);
  }
  return [...paths].sort();
}
