import { formatResource, parseResource, resourcesConflict } from '../../core/resource.js';
import type { ResourceRef } from '../../core/resource.js';
import { ignoresCase } from '../../git/ignore-case.js';
import { git } from '../../git/run.js';
import type { ClaimRecord, SessionRecord } from '../../store/types.js';
import type { ClaimService } from '../claims/claims.js';
import type { LanesContext } from '../context.js';
import { describeSession } from '../describe.js';
import { FINISH_HINT, interruptedIn } from './interrupted.js';

// The guard's pre-commit decision (the first incident: session B's plain `git commit` took the
// eleven files session A had staged in the same worktree). A commit is refused when
// - a staged path is claimed by another live session, or
// - another live session of this host works in this worktree (one index for both) and a staged
//   path is not claimed by the committer: git cannot tell whose staged change it is, so lanes
//   does not guess. The committer is the acting session (sessions/acting.ts), or a person with none.
// The refusal is the hook's non-zero exit: git then makes no commit and leaves the index as it was.

/** The environment variable that lets one commit through a shared index (journaled). */
export const SHARED_INDEX_OVERRIDE = 'LANES_ALLOW_SHARED_INDEX';

export interface CommitCheck {
  /** Staged paths claimed by another live session, in words. */
  claimed: string[];
  /** Other live sessions of this host in this worktree. */
  sharers: SessionRecord[];
  /** Staged paths the committer has not claimed (what a shared index may hold of someone else's). */
  notMine: string[];
  /** The shared-index refusal was waived by SHARED_INDEX_OVERRIDE=1 for this commit. */
  overridden: boolean;
  /** Why the commit may not go ahead, in words, with the ways out (null: it may). */
  refusal: { code: 'E_CLAIM_HELD' | 'E_SHARED_INDEX' | 'E_REPO_STATE'; reason: string; hint: string } | null;
}

const ALLOW: CommitCheck = { claimed: [], sharers: [], notMine: [], overridden: false, refusal: null };

async function stagedPaths(worktree: string): Promise<string[]> {
  // -z: names as they are (no quoting of non-ASCII); --no-renames: both sides of a rename are staged paths.
  const out = await git(['diff', '--cached', '--name-only', '-z', '--no-renames'], { cwd: worktree });
  return out.split('\0').filter(Boolean);
}

export async function checkCommit(ctx: LanesContext, claims: ClaimService): Promise<CommitCheck> {
  const repo = await ctx.repo();
  if (!repo) return ALLOW;
  // A worktree a killed land or lanes commit left half-brought: its staged "changes" are the published work reversed.
  const interrupted = interruptedIn(repo.commonDir, repo.worktreeRoot);
  if (interrupted) return { ...ALLOW, refusal: { code: 'E_REPO_STATE', reason: interrupted, hint: FINISH_HINT } };
  const staged = await stagedPaths(repo.worktreeRoot);
  if (staged.length === 0) return ALLOW;
  const claimed = (await claims.othersHoldingPaths(staged.map((p) => `${repo.worktreeRoot}/${p}`))).map(
    (h) => `${formatResource(h.claim)} is claimed by ${describeSession(h.session, h.claim.sessionId)}`,
  );
  // A worktree is a directory of one machine: a team store's sessions on other hosts never share it.
  const sharers = await ctx.liveSessions(
    (s) => s.worktree === repo.worktreeRoot && s.owner.host === ctx.host && s.id !== ctx.sessionId,
  );
  let notMine: string[] = [];
  if (sharers.length > 0) {
    const mine = ctx.sessionId ? await ctx.store.listClaims({ sessionId: ctx.sessionId }) : [];
    const repoId = ctx.repoId(repo);
    const fold = ignoresCase(repo.commonDir);
    notMine = staged.filter((p) => !coveredBy(mine, pathRef(p, repo.worktreeRoot, repoId, ctx.host, fold)));
  }
  // The override waives only the shared index, never another session's claim.
  const overridden = claimed.length === 0 && notMine.length > 0 && ctx.env[SHARED_INDEX_OVERRIDE] === '1';
  const check = { claimed, sharers, notMine, overridden, refusal: null };
  if (claimed.length > 0)
    return {
      ...check,
      refusal: {
        code: 'E_CLAIM_HELD',
        reason: claimed.join('; '),
        hint: 'unstage those paths (git restore --staged PATH) and commit only yours with `lanes commit -m MSG -- PATH…`',
      },
    };
  if (notMine.length > 0 && !overridden)
    return { ...check, refusal: { code: 'E_SHARED_INDEX', ...sharedIndexMessage(check, ctx.sessionId) } };
  return check;
}

function pathRef(
  rel: string,
  worktreeRoot: string,
  repoId: string,
  host: string,
  ignoreCase: boolean,
): ResourceRef | null {
  try {
    return parseResource(`path:${rel}`, { cwd: worktreeRoot, worktreeRoot, repoId, host, ignoreCase });
  } catch {
    return null;
  }
}

function coveredBy(mine: ClaimRecord[], ref: ResourceRef | null): boolean {
  return ref !== null && mine.some((c) => c.kind === 'path' && resourcesConflict(c, ref));
}

/** The refusal's words: who else works here, what is staged that is not the committer's, the ways out. */
function sharedIndexMessage(
  check: Pick<CommitCheck, 'notMine' | 'sharers'>,
  committer: string | null,
): { reason: string; hint: string } {
  const shown =
    check.notMine.slice(0, 10).join(', ') +
    (check.notMine.length > 10 ? `, and ${check.notMine.length - 10} more` : '');
  const who = check.sharers.map((s) => describeSession(s)).join('; ');
  const by = committer ? `session ${committer} has` : 'you (no lanes session) have';
  return {
    reason: `this worktree's index is shared with ${who}: ${by} not claimed ${shown}, so these staged changes may be another session's`,
    hint: `commit exactly your own paths with \`lanes commit -m MSG -- PATH…\` (its own index), or give each session its own worktree (\`lanes start --worktree\`); to commit everything staged anyway, once: ${SHARED_INDEX_OVERRIDE}=1 git commit … (journaled)`,
  };
}
