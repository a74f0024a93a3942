import type { LanesContext } from '../context.js';

// One look of the per-host watcher (`lanes watch`): the open sessions of this host proven alive
// again, so a death is recorded (session.died), journaled and told when it happens, with no command
// run and no page open; and, on a team store, the lease of every session whose owner is proven
// alive here renewed, so other hosts never judge a thinking agent dead (its claims lapse only once
// its owner died or this host went silent).

export interface WatchLook {
  /** The live sessions of this host. */
  live: number;
  /** Those recorded dead by this look (each death once, whoever judges). */
  died: string[];
  /** Leases renewed (team store). */
  renewed: number;
}

export async function watchHost(ctx: LanesContext): Promise<WatchLook> {
  const mine = (await ctx.store.listSessions({ includeEnded: false, includeDead: false })).filter(
    (s) => s.owner.host === ctx.host,
  );
  const states = await ctx.statesOf(mine);
  const live = mine.filter((s) => states.get(s.id)?.state === 'live');
  const died = mine.filter((s) => states.get(s.id)?.state === 'dead').map((s) => s.id);
  let renewed = 0;
  if (ctx.store.info.backend === 'postgres')
    // A third of the lease: written at most three times a lease, never missed by one slow look.
    for (const s of live)
      if (await ctx.store.touchSession(s.id, Math.floor(ctx.leaseMs / 3)).catch(() => false)) renewed++;
  return { live: live.length, died, renewed };
}
