import type { ClaimService } from './claims.js';
import type { LanesContext } from '../context.js';
import type { WaitView } from '../lanes-api.js';

/** The recorded waits, each with its session, whether its process still runs, and who holds what it waits for. */
export async function waitsView(ctx: LanesContext, claims: ClaimService): Promise<WaitView[]> {
  const waits = await ctx.store.listWaits();
  if (waits.length === 0) return [];
  const now = await ctx.store.now();
  const verdicts = ctx.judge(
    waits.map((w) => ({ owner: w.owner, lastSeenMs: now })),
    now,
  );
  const out: WaitView[] = [];
  for (const [i, wait] of waits.entries()) {
    const held = await ctx.store.conflictingClaims(wait.resources);
    out.push({
      wait,
      session: await ctx.store.getSession(wait.sessionId),
      live: verdicts[i]?.live ?? false,
      heldBy: (await claims.holders(held)).filter((h) => h.claim.sessionId !== wait.sessionId),
    });
  }
  return out;
}
