import type { Budget, BudgetConfig, Limits } from '../../core/budget.js';
import { totalTokens } from '../../core/usage.js';
import type { JournalEntry } from '../../store/journal-types.js';
import type { SessionRecord } from '../../store/types.js';
import type { LanesContext } from '../context.js';
import type { Json } from '../state/state.js';
import { continued, markOf, reached } from './budget-check.js';
import type { BudgetMark, SessionFigures } from './budget-check.js';

// Ticket and night budgets (issue 50, item 2): what all of a ticket's sessions (started in the
// last 7 days) or all the night's (the last 12 hours: the report's window) spent, on this host or
// any host of a team store. Each session publishes what it spent on its state (lanes:budget.spent)
// at its checked tool calls, at most every half minute; a session sums the others' from their
// states at most every half minute too (kept on its own state), so a tool call costs one state
// read more, not a read of every record of the night.

export const GROUP_EVERY_MS = 30_000;
const TICKET_MS = 7 * 86_400_000;
const NIGHT_MS = 12 * 3_600_000;

export interface Spent {
  usd: number;
  tokens: number;
  toolCalls: number;
  at: number;
}

export type Scope = 'ticket' | 'night';

export interface GroupMark {
  at: number;
  ticket: Spent | null;
  night: Spent | null;
}

/** A scope's spend as the limits read it (wall time is a session's only). */
export const asFigures = (g: Spent): SessionFigures => ({
  usage: { input: g.tokens, output: 0, cacheRead: 0, cacheWrite: 0, byModel: {}, toolCalls: g.toolCalls },
  usd: g.usd,
  wallMs: 0,
});

export function spentOf(f: SessionFigures, at: number): Spent {
  return { usd: f.usd, tokens: totalTokens(f.usage), toolCalls: f.usage.toolCalls, at };
}

const noWall = (l: Limits): Limits => {
  const { wallMs: _wall, ...rest } = l;
  return rest;
};

async function startsSince(ctx: LanesContext, since: number): Promise<JournalEntry[]> {
  const out: JournalEntry[] = [];
  for (let afterSeq: number | undefined; out.length < 100_000;) {
    const page = await ctx.store.readJournal({
      kinds: ['session.start'],
      ...(afterSeq === undefined ? { since } : { afterSeq }),
      limit: 1000,
    });
    out.push(...page);
    if (page.length < 1000) break;
    afterSeq = page[page.length - 1]!.seq;
  }
  return out;
}

/** The ticket's and the night's spend: the others' as they published it, this session's as read now. */
export async function groupSpend(
  ctx: LanesContext,
  s: SessionRecord,
  own: Spent,
  now: number,
  want: { ticket: boolean; night: boolean },
): Promise<GroupMark> {
  const starts = await startsSince(ctx, now - (want.ticket ? TICKET_MS : NIGHT_MS));
  const night = new Set(starts.filter((e) => e.at >= now - NIGHT_MS).map((e) => e.subject));
  const ticket = new Set(s.ticket ? starts.filter((e) => e.ticket === s.ticket).map((e) => e.subject) : []);
  night.delete(s.id);
  ticket.delete(s.id);
  const rows = await ctx.store.readStates([...new Set([...night, ...ticket])]);
  const spent = new Map(rows.map((r) => [r.sessionId, markOf(JSON.parse(r.value) as Json).spent ?? null]));
  const sum = (ids: Set<string>): Spent => {
    const t = { ...own, at: now };
    for (const id of ids) {
      const x = spent.get(id);
      if (!x) continue;
      t.usd += x.usd;
      t.tokens += x.tokens;
      t.toolCalls += x.toolCalls;
    }
    return t;
  };
  return { at: now, ticket: want.ticket && s.ticket ? sum(ticket) : null, night: want.night ? sum(night) : null };
}

/** The hard limits of a scope in force for this session: the config's, as `lanes continue` raised them here. */
export function scopeLimits(b: Budget, m: BudgetMark, scope: Scope): Limits {
  return noWall({ ...b.hard, ...(scope === 'ticket' ? m.raisedTicket : m.raisedNight) });
}

/** The first scope whose limit (hard, or soft with `soft`) is reached: `night: $52.10 of $50.00 (usd)`. */
export function groupReached(
  cfg: BudgetConfig,
  m: BudgetMark,
  g: GroupMark,
  soft: boolean,
): { scope: Scope; key: string; text: string } | null {
  for (const scope of ['ticket', 'night'] as const) {
    const b = cfg[scope];
    const spent = g[scope];
    if (!b || !spent) continue;
    const limits = soft ? noWall(b.soft) : scopeLimits(b, m, scope);
    const r = reached(
      asFigures(spent),
      limits,
      soft ? (m.told ?? []).filter((k) => k.startsWith(`${scope}.`)).map((k) => k.slice(scope.length + 1)) : [],
    );
    if (r) return { scope, key: `${scope}.${r.key}`, text: `${scope}: ${r.text}` };
  }
  return null;
}

/** `lanes continue` of a session paused by a scope: that scope's limits raised for it by their size. */
export function continuedScope(cfg: BudgetConfig, m: BudgetMark, scope: Scope): Limits | null {
  const b = cfg[scope];
  const spent = m.group?.[scope];
  if (!b || !spent) return null;
  const raised = scope === 'ticket' ? m.raisedTicket : m.raisedNight;
  return continued({ hard: noWall(b.hard), soft: {} }, raised ? { raised } : {}, asFigures(spent));
}
