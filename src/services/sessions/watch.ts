import { DEFAULT_GRACE_MS } from '../../core/budget.js';
import type { SessionRecord } from '../../store/types.js';
import type { LanesContext } from '../context.js';
import { StateService } from '../state/state.js';
import type { Json } from '../state/state.js';

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
  /** Live sessions here paused by their budget for longer than [budget] grace: to be stopped (lanes stop). */
  pastGrace: string[];
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
  const kept = live.length ? await readStateMap(ctx, live) : new Map<string, Json>();
  await flagRunaways(ctx, live, kept).catch(() => undefined);
  return { live: live.length, died, renewed, pastGrace: await pausedPastGrace(ctx, live, kept) };
}

async function readStateMap(ctx: LanesContext, live: SessionRecord[]): Promise<Map<string, Json>> {
  const rows = await ctx.store.readStates(live.map((s) => s.id));
  return new Map(rows.map((r) => [r.sessionId, JSON.parse(r.value) as Json]));
}

/** Runaways (services/spend/runaway.ts): journaled with their evidence and told, once each. */
async function flagRunaways(ctx: LanesContext, live: SessionRecord[], states: Map<string, Json>): Promise<void> {
  if (!live.length) return;
  const { runawayLook, DEFAULT_RUNAWAY } = await import('../spend/runaway.js');
  const { userBudget } = await import('../spend/budget-check.js');
  const b = await userBudget(ctx.env).catch(() => undefined);
  const config = {
    repeats: b?.runawayRepeats ?? DEFAULT_RUNAWAY.repeats,
    idleMs: b?.runawayIdleMs ?? DEFAULT_RUNAWAY.idleMs,
  };
  const flags = await runawayLook(ctx, live, states, config);
  for (const f of flags) {
    const s = live.find((x) => x.id === f.session)!;
    await ctx.journal.record({
      ...{ kind: 'budget.runaway', subject: s.id, session: s.id, ticket: s.ticket, repo: s.repo },
      details: { why: f.why, what: f.text },
    });
    const { notifyLater } = await import('../notify/dispatch.js');
    const { notifyEventOf } = await import('../notify/events.js');
    await notifyLater(ctx, [notifyEventOf('budget', s, `runaway: ${f.text}`, Date.now())]).catch(() => undefined);
  }
}

/**
 * Sessions paused by their budget (services/spend) since longer than the user's [budget] grace:
 * each journaled once (budget.stop) as the watcher stops it, and named again a minute later if it
 * is still live (a stop that failed is tried again).
 */
async function pausedPastGrace(ctx: LanesContext, live: SessionRecord[], states: Map<string, Json>): Promise<string[]> {
  if (!live.length) return [];
  const { markOf, userBudget, BUDGET_KEY } = await import('../spend/budget-check.js');
  const paused = [...states]
    .map(([id, state]) => ({ id, mark: markOf(state) }))
    .filter((p) => typeof p.mark.pausedAt === 'number');
  if (!paused.length) return [];
  const grace = (await userBudget(ctx.env).catch(() => undefined))?.graceMs ?? DEFAULT_GRACE_MS;
  const now = Date.now();
  const out: string[] = [];
  for (const p of paused) {
    if (now - p.mark.pausedAt! < grace) continue;
    const stopAt = (p.mark as { stopAt?: number }).stopAt;
    if (stopAt && now - stopAt < 60_000) continue;
    if (!stopAt) {
      const s = live.find((x) => x.id === p.id)!;
      await new StateService(ctx).mutate(p.id, (cur) =>
        cur && typeof cur === 'object' && !Array.isArray(cur)
          ? { ...cur, [BUDGET_KEY]: { ...(p.mark as unknown as Record<string, Json>), stopAt: now } }
          : undefined,
      );
      await ctx.journal.record({
        ...{ kind: 'budget.stop', subject: p.id, session: p.id, ticket: s.ticket, repo: s.repo },
        details: { what: p.mark.pausedFor ?? '', pausedAt: p.mark.pausedAt, graceMs: grace },
      });
    }
    out.push(p.id);
  }
  return out;
}
