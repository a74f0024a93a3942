// The listings of sessions (lanes ls, the dashboard, the MCP server): which sessions, their
// liveness, and their claims, read so that a session's claims cost the rows shown, not all it holds.
import { existsSync } from 'node:fs';
import type { SessionState } from '../../core/liveness.js';
import type { ClaimRecord, SessionRecord } from '../../store/types.js';
import type { LanesContext } from '../context.js';
import { rowPages } from './row-pages.js';
import { bySession, firstClaims, toRow, toView, type SessionRow, type SessionView } from './session-rows.js';

export type { SessionRow, SessionView } from './session-rows.js';

/** The listings as the library offers them (lanes-api.ts LanesSessions). */
export const listings = (ctx: LanesContext) => ({
  list: (o?: { all?: boolean }) => list(ctx, o),
  rows: (o: { all?: boolean; claimsShown: number }) => rows(ctx, o),
  claimPages: (id: string, size?: number) => claimPages(ctx, id, size),
  rowPages: (o: { all?: boolean; claimsShown: number; nest?: boolean; size?: number }) => rowPages(ctx, o),
  overview: (o?: { deadShown?: number; claimsShown?: number }) => overview(ctx, o),
  judge: (sessions: SessionRecord[], now?: number) => judge(ctx, sessions, now),
  spend: async (sessions: SessionRecord[], now?: number) =>
    (await import('../spend/spend.js')).spendOf(ctx, sessions, now ?? (await ctx.store.now())),
  budgetOf: async (name: string) => (await import('../spend/budget-facade.js')).budgetings(ctx).budgetOf(name),
  continue: async (name: string) => (await import('../spend/budget-facade.js')).budgetings(ctx).continue(name),
  raiseBudget: async (name: string, spec: string) =>
    (await import('../spend/budget-facade.js')).budgetings(ctx).raise(name, spec),
});

/** Sessions not ended (dead ones included: they need attention); all of them with `all`. */
export async function list(ctx: LanesContext, options: { all?: boolean } = {}): Promise<SessionView[]> {
  const [sessions, claims] = await Promise.all([
    ctx.store.listSessions({ includeEnded: options.all === true }),
    ctx.store.listClaims(),
  ]);
  const states = await ctx.statesOf(sessions);
  const held = bySession(claims);
  return sessions.map((s) => toView(s, states.get(s.id)!, held.get(s.id) ?? []));
}

/**
 * Sessions not ended (every session with `all`) with at most `claimsShown` claims each (the first
 * as a person reads them: ticket, paths, branch, others, ports) and how many each holds: the claims of the sessions that hold any are counted in
 * the index, never read whole (`lanes ls --all` at any number of claims).
 */
export async function rows(ctx: LanesContext, options: { all?: boolean; claimsShown: number }): Promise<SessionRow[]> {
  const [sessions, holders] = await Promise.all([
    ctx.store.listSessions({ includeEnded: options.all === true }),
    ctx.store.claimHolders(),
  ]);
  const states = await ctx.statesOf(sessions);
  const holding = new Set(holders);
  const { first, counts } = await firstClaims(
    ctx,
    sessions.filter((x) => holding.has(x.id)).map((x) => x.id),
    options.claimsShown,
  );
  return sessions.map((x) => toRow(x, states.get(x.id)!, first.get(x.id) ?? [], counts.get(x.id) ?? 0));
}

/** A session's claims a page at a time, in key order (`lanes ls --json` streams them). */
export async function* claimPages(ctx: LanesContext, id: string, size = 1000): AsyncGenerator<ClaimRecord[]> {
  for (let after: ClaimRecord | undefined; ;) {
    const page = await ctx.store.listClaims({ sessionId: id, limit: size, ...(after ? { after } : {}) });
    if (page.length > 0) yield page;
    if (page.length < size) return;
    after = page.at(-1);
  }
}

/**
 * What `lanes ls` shows by default: the live sessions, and the dead ones that still hold claims
 * or whose worktree has unsaved work no live session shares (gc would snapshot it), the first
 * `deadShown` of them; the other dead ones are only counted. The recorded dead are counted and
 * chosen in the store's indexes (thousands of them after months of nights: none is read unless
 * shown); one git status per worktree where they may have left work, not per session.
 */
export async function overview(
  ctx: LanesContext,
  options: { deadShown?: number; claimsShown?: number } = {},
): Promise<{ sessions: SessionRow[]; hidden: number; moreDead: number }> {
  const limit = options.deadShown ?? 50;
  // The sessions not recorded dead in full (few: the live ones and the newly dead), which sessions
  // hold claims (not the claims), and the worktrees where a recorded dead one holding none worked.
  const [candidates, holders, deadWorktrees] = await Promise.all([
    ctx.store.listSessions({ includeEnded: false, includeDead: false }),
    ctx.store.claimHolders(),
    ctx.store.deadWorktrees(ctx.host),
  ]);
  // Judging records the newly dead; they are counted from here, and left out of the store's answer
  // (whether their recording succeeded or not: it is best effort).
  const states = await ctx.statesOf(candidates);
  const held = new Set(holders);
  const live = candidates.filter((x) => states.get(x.id)?.state === 'live');
  const fresh = candidates.filter((x) => states.get(x.id)?.state !== 'live');
  const here = (x: SessionRecord) => x.owner.host === ctx.host && x.worktree !== null;
  const liveWorktrees = new Set(live.filter(here).map((x) => x.worktree));
  const worktrees = new Set(
    [...deadWorktrees, ...fresh.filter((x) => !held.has(x.id) && here(x)).map((x) => x.worktree as string)].filter(
      (wt) => !liveWorktrees.has(wt),
    ),
  );
  const dirty = await dirtyOf(worktrees);
  const recorded = await ctx.store.deadAttention({
    host: ctx.host,
    worktrees: [...dirty],
    limit,
    exclude: fresh.map((x) => x.id),
  });
  const freshAttention = fresh.filter((x) => held.has(x.id) || (here(x) && dirty.has(x.worktree as string)));
  // The store's first `limit` and every newly dead one needing attention hold the first `limit` of all.
  const shownDead = [...freshAttention, ...recorded.first].sort(byCreation).slice(0, limit);
  const shownList = [...live, ...shownDead].sort(byCreation);
  const shownStates = new Map([...states, ...(await ctx.statesOf(recorded.first))]);
  const { first, counts } = await firstClaims(
    ctx,
    shownList.filter((x) => held.has(x.id)).map((x) => x.id),
    options.claimsShown,
  );
  const attention = recorded.attention + freshAttention.length;
  return {
    sessions: shownList.map((x) => toRow(x, shownStates.get(x.id)!, first.get(x.id) ?? [], counts.get(x.id) ?? 0)),
    hidden: recorded.dead + fresh.length - attention,
    moreDead: attention - shownDead.length,
  };
}

/** Which of these worktrees have unsaved work: a git status each (a few at once) of those on disk. */
async function dirtyOf(worktrees: Set<string>): Promise<Set<string>> {
  const there = [...worktrees].filter((wt) => existsSync(wt));
  if (there.length === 0) return new Set();
  const { status } = await import('../../git/status.js');
  const dirty = new Set<string>();
  const next = async (): Promise<void> => {
    for (let wt = there.pop(); wt !== undefined; wt = there.pop())
      if ((await status(wt).catch(() => [])).length > 0) dirty.add(wt);
  };
  await Promise.all([next(), next(), next(), next()]);
  return dirty;
}

function byCreation(a: { createdAt: number; id: string }, b: { createdAt: number; id: string }): number {
  return a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** Liveness of these sessions now, as list() judges it (Lanes.sessions.judge). */
export async function judge(
  ctx: LanesContext,
  sessions: SessionRecord[],
  now?: number,
): Promise<Map<string, { state: SessionState; why: string }>> {
  const states = await ctx.statesOf(sessions, now);
  return new Map([...states].map(([id, l]) => [id, { state: l.state, why: l.verdict.why }]));
}
