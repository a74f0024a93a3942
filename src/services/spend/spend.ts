import { join } from 'node:path';
import { lanesHome } from '../../core/paths.js';
import { addUsage, noUsage } from '../../core/usage.js';
import type { Usage } from '../../core/usage.js';
import type { SessionRecord } from '../../store/types.js';
import type { LanesContext } from '../context.js';
import { recordsOf } from '../hooks/records.js';
import type { Json } from '../state/state.js';
import { costOf, loadPrices } from './prices.js';
import { usageOfRecords } from './record-reader.js';

// What each session spent (issue 50, item 1), from its agent's own record (the files its hooks
// named: services/hooks/records.ts), read incrementally (record-reader.ts), priced from an
// editable table (prices.ts), and its wall time. Claude Code, Codex and Gemini CLI keep usage in
// their records; Copilot CLI, Cursor and OpenCode are not read yet (`measured: false`).

export interface SessionSpend {
  session: string;
  ticket: string | null;
  agent: string | null;
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

export interface Spend {
  sessions: SessionSpend[];
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
  const total = noUsage();
  let costUsd = 0;
  const out: SessionSpend[] = [];
  for (const s of sessions) {
    const { usage: tokens, measured } = usageOfRecords(dir, recordsOf(states.get(s.id)));
    const cost = costOf(tokens, table.prices);
    addUsage(total, tokens);
    costUsd += cost.usd;
    out.push({
      ...{ session: s.id, ticket: s.ticket, agent: s.agent, tokens },
      ...{
        costUsd: measured ? cost.usd : null,
        unpriced: cost.unpriced,
        wallMs: (s.endedAt ?? now) - s.createdAt,
        measured,
      },
    });
  }
  return { sessions: out, total, costUsd, prices: table.problem };
}
