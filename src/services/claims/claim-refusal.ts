import { LanesError } from '../../core/errors.js';
import { formatResource } from '../../core/resource.js';
import type { ResourceRef } from '../../core/resource.js';
import { repoOfScope } from '../../store/shared/journal-entries.js';
import type { ClaimResult } from '../../store/types.js';
import type { LanesContext } from '../context.js';
import { describeHolder, describeSession } from '../describe.js';
import { refuseUnknownHolders } from './unknown-holders.js';

type Refused = Extract<ClaimResult, { ok: false }>;

/** Who holds what a refused claim wanted, as a wait notice and E_CLAIM_HELD tell it. */
export async function refusalReason(ctx: LanesContext, result: Refused): Promise<string> {
  return reasonAt(result, result.now ?? (await ctx.store.now()));
}

/** refusalReason() at the store's clock `now`: a waiter builds it only when it tells it (a notice, a timeout). */
export function reasonAt(result: Refused, now: number): string {
  return result.blockers
    .map(
      (b) =>
        `${formatResource(b.wanted)}${b.held.name !== b.wanted.name ? ` overlaps ${formatResource(b.held)}, which is` : ' is'} held by ${describeSession(b.holder, b.held.sessionId)}, ${b.holder ? describeHolder(b.holder.owner, b.held.acquiredAt, now) : ''}`,
    )
    .join('; ');
}

/** A claim that does not wait, refused: journaled (a refusal is a decision), then E_CLAIM_HELD. */
export async function refuse(
  ctx: LanesContext,
  id: string,
  refs: ResourceRef[],
  texts: string[],
  result: Refused,
  reason: string,
): Promise<never> {
  await refuseUnknownHolders(ctx, result.blockers);
  await ctx.journal.record({
    kind: 'claim.refuse',
    subject: refs.map(formatResource).join(' '),
    session: id,
    repo: repoOfScope(refs[0]?.scope),
    ticket: (await ctx.store.getSession(id))?.ticket ?? null,
    details: {
      heldBy: result.blockers.map((b) => ({
        resource: formatResource(b.held),
        session: b.held.sessionId,
        token: b.held.token,
      })),
    },
  });
  throw new LanesError('E_CLAIM_HELD', reason, {
    hint: `coordinate with the holder (it can run \`lanes release ${formatResource(result.blockers[0]?.held ?? refs[0]!)}\`), wait with \`lanes claim --wait ${texts.join(' ')}\`, or work on something else; nothing was claimed`,
    details: {
      blockers: result.blockers.map((b) => ({
        wanted: formatResource(b.wanted),
        held: formatResource(b.held),
        session: b.held.sessionId,
        token: b.held.token,
      })),
    },
  });
}
