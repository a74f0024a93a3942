import { describeInterrupted, landingInto } from '../land/landing-intent.js';
import { describeInterruptedCommit, pendingCommits } from './commit-intent.js';

/** How to finish what a kill left half-done (a land or a lanes commit). */
export const FINISH_HINT =
  'run `lanes doctor --fix` to finish it (or `lanes land` / `lanes commit` again): lanes brings the index and files to what was published, or records that nothing was';

/**
 * What a kill left half-done in this worktree, in words, or null: a land whose target is checked
 * out here, or a lanes commit here, interrupted between moving the branch and bringing the index
 * along. Its staged "changes" are then the published work reversed: committing them reverts it.
 * Two directory reads when there is nothing (the cost on the hooks' path).
 */
export function interruptedIn(commonDir: string, worktree: string): string | null {
  const land = landingInto(commonDir, worktree);
  if (land) return describeInterrupted(land);
  const commit = pendingCommits(commonDir).find((i) => i.worktree === worktree);
  return commit ? describeInterruptedCommit(commit) : null;
}
