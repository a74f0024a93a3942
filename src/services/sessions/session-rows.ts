// A session as the listings show it (lanes ls, the dashboard, the MCP server): its liveness, its
// first claims as a person reads them and how many it holds, read so that claims cost the rows shown.
import type { SessionState } from '../../core/liveness.js';
import { claimRank } from '../../core/resource.js';
import type { ClaimRecord, SessionRecord } from '../../store/types.js';
import type { LanesContext, SessionLiveness } from '../context.js';

export interface SessionView extends SessionRecord {
  state: SessionState;
  /** Why it is dead or ended; '' when live. */
  why: string;
  claims: ClaimRecord[];
}

/** A session as a listing shows it: its first claims (`claims`) and how many it holds in all. */
export interface SessionRow extends SessionView {
  claimCount: number;
}

/** The first `shown` claims of each session as a person reads them (all of them without a bound), and each one's count. */
export async function firstClaims(
  ctx: LanesContext,
  ids: string[],
  shown = Infinity,
): Promise<{ first: Map<string, ClaimRecord[]>; counts: Map<string, number> }> {
  if (ids.length === 0) return { first: new Map(), counts: new Map() };
  if (shown === Infinity) {
    const first = bySession(await ctx.store.listClaims({ sessionIds: ids }));
    // In the order firstClaims reads them (a stable sort: key order within a kind's rank).
    for (const c of first.values()) c.sort((a, b) => claimRank(a.kind) - claimRank(b.kind));
    return { first, counts: new Map([...first].map(([id, c]) => [id, c.length])) };
  }
  if (shown === 0) return { first: new Map(), counts: await ctx.store.claimCounts(ids) };
  // One more than shown: a session holding no more is counted by what was read; the others in the index.
  const first = bySession(await ctx.store.firstClaims(ids, shown + 1));
  const more = [...first].filter(([, c]) => c.length > shown).map(([id]) => id);
  const counts = new Map([...first].map(([id, c]) => [id, c.length]));
  for (const [id, n] of more.length > 0 ? await ctx.store.claimCounts(more) : []) counts.set(id, n);
  for (const c of first.values()) c.splice(shown);
  return { first, counts };
}

export function bySession(claims: ClaimRecord[]): Map<string, ClaimRecord[]> {
  const m = new Map<string, ClaimRecord[]>();
  for (const c of claims) {
    const list = m.get(c.sessionId);
    if (list) list.push(c);
    else m.set(c.sessionId, [c]);
  }
  return m;
}

export function toView(s: SessionRecord, live: SessionLiveness, claims: ClaimRecord[]): SessionView {
  return { ...s, state: live.state, why: live.verdict.why, claims };
}

// Counted and read apart: a claim granted or released in between must not make the count a lie.
export function toRow(s: SessionRecord, live: SessionLiveness, claims: ClaimRecord[], count: number): SessionRow {
  return { ...toView(s, live, claims), claimCount: Math.max(count, claims.length) };
}
