import { hookSessionId } from '../../core/hook-event.js';
import type { HookDecision, HookEvent } from '../../core/hook-event.js';
import { lanesHome } from '../../core/paths.js';
import { markedInbox } from '../tell/inbox.js';
import type { AttentionState, SessionRecord } from '../../store/types.js';
import { loadConfig } from '../config.js';
import type { LanesContext } from '../context.js';
import type { EndOptions, EndResult } from '../sessions/end-session.js';
import type { SessionService } from '../sessions/sessions.js';
import type { SnapshotService } from '../snapshots/snapshots.js';
import type { StateService } from '../state/state.js';
import type { HookContext } from './context.js';
import type { SeatsApi } from '../seats/facade.js';

/** The hook policy's view of one openLanes(), and whether its call was the agent working. */
export interface BoundHooks {
  context: HookContext;
  /** Set by the policy for a tool call or a prompt: the closing heartbeat then clears waiting and finished. */
  readonly active: () => boolean;
  /** One hook call: the decision, journaled when it is a deny or a warning; a deny shows on the session. */
  run(event: HookEvent): Promise<HookDecision>;
}

export function bindHooks(
  ctx: LanesContext,
  parts: {
    sessions: SessionService;
    state: StateService;
    snapshots: SnapshotService;
    end: (id: string, o: EndOptions) => Promise<EndResult>;
    seats: SeatsApi;
  },
): BoundHooks {
  const { sessions, state, snapshots, end, seats } = parts;
  let active = false;
  const context: HookContext = {
    host: ctx.host,
    repoId: (repo) => ctx.repoId(repo),
    liveSessions: (which) => ctx.liveSessions(which),
    liveAmong: async (ids) => {
      if (ids.length === 0) return [];
      const found = await ctx.store.getSessions(ids);
      const states = await ctx.statesOf(found);
      return found.filter((s) => states.get(s.id)?.state === 'live');
    },
    touchedAt: (repo, keys) => ctx.store.touchedAt(repo, keys),
    indexTouched: (id, repo, paths, replace) => ctx.store.indexTouched(id, repo, paths, replace),
    findSession: (id) => sessions.find(id),
    runAbove: async (chain) => {
      const id = ctx.env['LANES_RUN'];
      if (!id) return null;
      const s = await ctx.store.getSession(id).catch(() => null);
      // A run lanes launched has its command recorded (a person's shell session has none).
      if (!s || s.endedAt !== null || s.command === null) return null;
      if (s.owner.host !== ctx.host || s.owner.bootId !== ctx.bootId) return null;
      // Its owner (the wrapper) is above this hook: a LANES_RUN copied into another process tree is not this run.
      return chain.some((f) => f.pid === s.owner.pid && f.startTime === s.owner.startTime) ? s : null;
    },
    bindRun: (run, o) => sessions.bindRun(run, o),
    actAs: (id) => void (ctx.sessionId = id),
    attachSession: (o) => sessions.attach(o),
    claimsOf: (ids) => (ids.length ? ctx.store.listClaims({ sessionIds: ids }) : Promise.resolve([])),
    conflictingClaims: (refs) => ctx.store.conflictingClaims(refs),
    readStates: (ids) => ctx.store.readStates(ids),
    mutateState: (id, fn) => state.mutate(id, fn),
    config: (worktree) => loadConfig(ctx, worktree),
    snapshot: (worktree, id, why) => snapshots.snapshot(worktree, id, why),
    endSession: (id, reason) => end(id, { reason, asOwner: true }),
    settleSubagent: async (sub, agentSession, pids) =>
      (await import('../worktrees/agent-worktrees.js')).settleSubagentWorktree(
        ctx,
        { snapshots, end: (id, o) => end(id, { ...o, asOwner: true }) },
        { sub, agentSession, pids },
      ),
    working: () => void (active = true),
    // What the agent signalled is shown and notified beside the decision: a store that cannot take
    // it (a full disk) never changes the answer, a deny above all.
    attend: (session, attention, why) => attend(ctx, session, attention, why).catch(() => false),
    settle: async (id) => {
      await ctx.store.setAttention(id, null, null).catch(() => undefined);
    },
    env: ctx.env,
    seatExhausted: (signal) => seats.exhausted(signal),
    notifyExhausted: async (s, why) => {
      const { notifyLater } = await import('../notify/dispatch.js');
      const { notifyEventOf } = await import('../notify/events.js');
      await notifyLater(ctx, [notifyEventOf('exhausted', s, why, await ctx.store.now())]).catch(() => undefined);
    },
  };
  return {
    context,
    active: () => active,
    async run(event) {
      const decision = await (await import('./policy.js')).decide(context, event);
      // Only a deny or a warning is a decision to record (an allow writes nothing: the hot path).
      const records = () => import('../journal/journal-records.js');
      const e =
        decision.permission === 'deny' || decision.context ? (await records()).hookEntry(event, decision) : null;
      if (e) await ctx.journal.record(e);
      if (decision.permission === 'deny') await attendDenied(context, event, decision.reason);
      // A budget (issue 50): past a hard one the call is denied (the pause journals itself, once).
      const budgeted =
        ctx.env['LANES_BUDGET'] || (await import('../spend/budget-check.js')).userBudgetMentioned(ctx.env)
          ? await (await import('../spend/budget-hook.js')).budgetGate(ctx, context, event, decision)
          : decision;
      // Paused by its budget: the call is no sign of work (the waiting the pause showed stays).
      if (budgeted !== decision && budgeted.permission === 'deny') active = false;
      // A person's messages (lanes tell): looked for by a stat of the inbox mark, read only when marked.
      const marked = markedInbox(lanesHome(ctx.env), [ownId(event), ctx.env['LANES_SESSION']]);
      const told = marked.length
        ? await (await import('../tell/tell.js')).deliverTells(ctx, context, event, budgeted, marked)
        : budgeted;
      // The store answered: calls it could not check during an outage are journaled now.
      const { flushUnchecked } = await import('./unchecked.js');
      await flushUnchecked(ctx).catch(() => 0);
      return told;
    },
  };
}

/** The agent's own session id of a call (none for an event without one: an ignored one, a bad id). */
function ownId(event: HookEvent): string | null {
  try {
    return hookSessionId(event);
  } catch {
    return null;
  }
}

async function attendDenied(h: HookContext, event: HookEvent, reason: string | null): Promise<void> {
  const { hookSessionId } = await import('../../core/hook-event.js');
  const found = await h.findSession(hookSessionId(event)).catch(() => null);
  // Already shown denied this turn: no second write in the deny's path (nor a second notification).
  if (found && found.endedAt === null && found.attention?.state !== 'denied')
    await h.attend(found, 'denied', reason?.split('\n')[0] ?? null);
}

/**
 * Shows the attention on the session (journaled for waiting and finished: a deny has its own
 * entry) and, when it is new, notifies: one prompt is one notification however many hooks report it.
 */
async function attend(
  ctx: LanesContext,
  s: SessionRecord,
  state: AttentionState,
  why: string | null,
): Promise<boolean> {
  const entry =
    state === 'denied'
      ? undefined
      : {
          kind: 'attention' as const,
          subject: s.id,
          session: s.id,
          repo: s.repo,
          ticket: s.ticket,
          details: { state, why, agent: s.agent },
        };
  const r = await ctx.store.setAttention(s.id, state, why, entry);
  if (!r.changed || !r.session?.attention) return false;
  const { notifyLater } = await import('../notify/dispatch.js');
  const { notifyEventOf } = await import('../notify/events.js');
  await notifyLater(ctx, [notifyEventOf(state, r.session, why, r.session.attention.at)]);
  return true;
}
