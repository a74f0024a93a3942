import { join } from 'node:path';
import { lanesHome } from '../../core/paths.js';
import { addUsage, noUsage, totalTokens } from '../../core/usage.js';
import type { Usage } from '../../core/usage.js';
import type { SessionRecord } from '../../store/types.js';
import type { LanesContext } from '../context.js';
import { recordsOf } from '../hooks/records.js';
import type { Json } from '../state/state.js';
import { costOf, loadPrices } from './prices.js';
import { usageOfRecords } from './record-reader.js';

// What each session spent (issue 50, item 1), from its agent's own record (the files its hooks
// named: services/hooks/records.ts), read incrementally (record-reader.ts), priced from an
// editable table (prices.ts), and its wall time. Claude Code, Codex, Gemini CLI, Copilot CLI and
// OpenCode keep usage in their records; Cursor is not read (`measured: false`). Per seat:
// the seat a session last leased (its `seat:NAME/N` grants in the journal) carries its spend.

export interface SessionSpend {
  session: string;
  ticket: string | null;
  agent: string | null;
  /** The seat it ran on last (a session moved to another seat counts on the one it ended on), or null. */
  seat: string | null;
  tokens: Usage;
  /** US dollars, an estimate from the price table; null when nothing was measured. */
  costUsd: number | null;
  /** Models no price matched: their tokens are counted but not in costUsd. */
  unpriced: string[];
  /** ms from its start to its end (or now). */
  wallMs: number;
  /** Whether lanes could read its agent's record (false: an agent whose usage lanes does not read, or no record named). */
  measured: boolean;
}

export interface SeatSpend {
  seat: string;
  sessions: number;
  tokens: Usage;
  costUsd: number;
}

export interface Spend {
  sessions: SessionSpend[];
  /** Per seat (sessions run on one), most spent first. */
  seats: SeatSpend[];
  total: Usage;
  costUsd: number;
  /** A problem with the user's price table, or null. */
  prices: string | null;
}

export async function spendOf(ctx: LanesContext, sessions: SessionRecord[], now: number): Promise<Spend> {
  const home = lanesHome(ctx.env);
  const dir = join(home, 'spend');
  const table = loadPrices(home);
  const states = new Map(
    (await ctx.store.readStates(sessions.map((s) => s.id))).map((r) => [r.sessionId, JSON.parse(r.value) as Json]),
  );
  const seatOf = await seatsOf(ctx, sessions);
  const total = noUsage();
  let costUsd = 0;
  const out: SessionSpend[] = [];
  const bySeat = new Map<string, SeatSpend>();
  for (const s of sessions) {
    const { usage: tokens, measured } = usageOfRecords(dir, recordsOf(states.get(s.id)));
    const cost = costOf(tokens, table.prices);
    addUsage(total, tokens);
    costUsd += cost.usd;
    const seat = seatOf.get(s.id) ?? null;
    if (seat) {
      const e = bySeat.get(seat) ?? { seat, sessions: 0, tokens: noUsage(), costUsd: 0 };
      e.sessions++;
      addUsage(e.tokens, tokens);
      e.costUsd += cost.usd;
      bySeat.set(seat, e);
    }
    out.push({
      ...{ session: s.id, ticket: s.ticket, agent: s.agent, seat, tokens },
      ...{
        costUsd: measured ? cost.usd : null,
        unpriced: cost.unpriced,
        wallMs: (s.endedAt ?? now) - s.createdAt,
        measured,
      },
    });
  }
  const seats = [...bySeat.values()].sort(
    (a, b) => b.costUsd - a.costUsd || totalTokens(b.tokens) - totalTokens(a.tokens),
  );
  return { sessions: out, seats, total, costUsd, prices: table.problem };
}

/** The seat each session leased last: its grants of `seat:NAME/N` in the journal since the first began. */
async function seatsOf(ctx: LanesContext, sessions: SessionRecord[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (!sessions.length) return out;
  const ids = new Set(sessions.map((s) => s.id));
  const since = Math.min(...sessions.map((s) => s.createdAt));
  const entries = await ctx.store.readJournal({ kinds: ['claim.grant', 'claim.takeover'], since, limit: 100_000 });
  for (const e of entries) {
    const m = /^seat:(.+)\/\d+$/.exec(e.subject ?? '');
    if (m && e.session && ids.has(e.session)) out.set(e.session, m[1]!);
  }
  return out;
}
