import { LanesError } from '../../core/errors.js';
import { formatResource } from '../../core/resource.js';
import { commitPaths } from '../../git/commit-paths.js';
import type { PathCommitResult } from '../../git/commit-paths.js';
import type { ClaimService } from '../claims/claims.js';
import type { LanesContext } from '../context.js';
import { describeSession } from '../describe.js';
import { FINISH_HINT, describeInterrupted, landingInto } from '../land/landing-intent.js';

/**
 * `lanes commit`: exactly the named paths onto this worktree's branch (see git/commit-paths.ts),
 * refused when another live session has claimed one of them.
 */
export async function commitNamedPaths(
  ctx: LanesContext,
  claims: ClaimService,
  paths: string[],
  message: string,
): Promise<PathCommitResult> {
  if (paths.length === 0)
    throw new LanesError('E_USAGE', 'name the paths to commit', { hint: 'lanes commit -m MESSAGE -- PATH…' });
  const repo = await ctx.repo();
  if (!repo)
    throw new LanesError('E_USAGE', `${ctx.cwd} is not inside a git worktree`, {
      hint: 'run lanes commit inside the worktree',
    });
  const landing = landingInto(repo.commonDir, repo.worktreeRoot);
  if (landing)
    throw new LanesError('E_REPO_STATE', `not committing: ${describeInterrupted(landing)}`, { hint: FINISH_HINT });
  const held = await claims.othersHoldingPaths(paths);
  if (held.length > 0) {
    const h = held[0]!;
    throw new LanesError(
      'E_CLAIM_HELD',
      `${formatResource(h.claim)} is claimed by ${describeSession(h.session, h.claim.sessionId)}; refusing to commit over it`,
      {
        hint: 'leave those paths out, or coordinate with that session (it can `lanes release` them)',
        details: { held: held.map((x) => ({ resource: formatResource(x.claim), session: x.claim.sessionId })) },
      },
    );
  }
  return commitPaths({ cwd: ctx.cwd, worktree: repo.worktreeRoot, paths, message });
}
