import { LanesError } from '../../core/errors.js';
import { formatResource } from '../../core/resource.js';
import { commitPaths } from '../../git/commit-paths.js';
import type { PathCommitResult } from '../../git/commit-paths.js';
import type { ClaimService } from '../claims/claims.js';
import type { LanesContext } from '../context.js';
import { describeSession } from '../describe.js';
import { describeInterrupted, landingInto } from '../land/landing-intent.js';
import { FINISH_HINT } from './interrupted.js';
import { revParse } from '../../git/worktree.js';
import { clearCommitIntent, commitEntryOf, finishCommit, pendingCommits, writeCommitIntent } from './commit-intent.js';
import type { CommitIntent } from './commit-intent.js';

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
  // Commits left half-done by a kill in this repository are finished first (commit-intent.ts).
  for (const i of pendingCommits(repo.commonDir)) await finishCommit(ctx, repo.commonDir, i, 'lanes commit');
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
  const session = ctx.sessionId ? await ctx.store.getSession(ctx.sessionId) : null;
  let intent: CommitIntent | null = null;
  let r: PathCommitResult;
  try {
    r = await commitPaths({
      cwd: ctx.cwd,
      worktree: repo.worktreeRoot,
      paths,
      message,
      // Intent before effect, outcome after: a kill in between is finished by the next call.
      beforeMove: async (plan) => {
        intent = {
          v: 1,
          branch: plan.branch,
          from: plan.parent,
          to: plan.commit,
          worktree: repo.worktreeRoot,
          paths: plan.files.map((f) => f.path),
          session: ctx.sessionId,
          repo: ctx.repoId(repo),
          ticket: session?.ticket ?? null,
          owner: ctx.self(),
          at: Date.now(),
        };
        writeCommitIntent(repo.commonDir, intent);
        try {
          await ctx.store.appendJournal([commitEntryOf(intent, 'commit.intent')]);
        } catch (e) {
          clearCommitIntent(repo.commonDir, plan.branch);
          throw e;
        }
      },
    });
  } catch (e) {
    const i = intent as CommitIntent | null;
    if (i && (await revParse(repo.worktreeRoot, i.branch)) !== i.to) {
      // Nothing was committed. A branch moved under us is journaled as a refusal by the caller;
      // anything else is recorded here as the intent's outcome.
      if ((e as { code?: unknown }).code !== 'E_CLAIM_HELD')
        await ctx.journal.record(commitEntryOf(i, 'commit.abort', { why: (e as Error).message.slice(0, 300) }));
      clearCommitIntent(repo.commonDir, i.branch);
    }
    throw e;
  }
  const done = intent as CommitIntent | null;
  if (done) {
    // Should the outcome fail to be recorded (a full disk), the intent stays and the next call records it.
    await ctx.store.appendJournal([commitEntryOf(done, 'commit')]);
    clearCommitIntent(repo.commonDir, done.branch);
  }
  return r;
}
