import { LanesError } from '../../core/errors.js';
import { formatResource } from '../../core/resource.js';
import type { ResourceRef } from '../../core/resource.js';
import type { SessionRecord } from '../../store/types.js';
import type { LanesContext } from '../context.js';
import { describeSession } from '../describe.js';

/**
 * Held only by sessions whose owners lanes cannot see from here (a sandbox, denied process
 * facts): not held-by-a-live-session (exit 3) and never a takeover, but E_LIVENESS_UNKNOWN (exit 1)
 * naming why, with the way out.
 */
export async function refuseUnknownHolders(
  ctx: LanesContext,
  blockers: { held: ResourceRef; holder: SessionRecord | null }[],
): Promise<void> {
  const holders = blockers.map((b) => b.holder).filter((h): h is SessionRecord => h !== null);
  if (holders.length === 0 || holders.length < blockers.length) return;
  const states = await ctx.statesOf(holders);
  const verdicts = holders.map((h) => states.get(h.id)?.verdict);
  if (!verdicts.every((v) => v?.unknown)) return;
  throw new LanesError(
    'E_LIVENESS_UNKNOWN',
    `${blockers.map((b) => `${formatResource(b.held)} is held by ${describeSession(b.holder)}`).join('; ')}, and lanes cannot tell from here whether it is alive (${verdicts[0]?.why ?? 'unknown'}): nothing was claimed or taken over`,
    {
      hint: `run the claim where lanes can see the holder's process (outside the agent's sandbox), or, if you know ${holders[0]!.id} is gone, end it from there: lanes end ${holders[0]!.id}`,
    },
  );
}
