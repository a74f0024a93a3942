import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isEmpty, parseBudget } from '../../core/budget.js';
import type { Budget, BudgetConfig, Limits } from '../../core/budget.js';
import { lanesHome } from '../../core/paths.js';
import { totalTokens } from '../../core/usage.js';
import type { Usage } from '../../core/usage.js';
import type { SessionRecord } from '../../store/types.js';
import type { LanesContext } from '../context.js';
import { userConfigOnly, userConfigPath } from '../config.js';
import { recordsOf } from '../hooks/records.js';
import type { Json } from '../state/state.js';
import type { GroupMark, Spent } from './budget-group.js';
import { costOf, loadPrices } from './prices.js';
import { usageOfRecords } from './record-reader.js';

// A session's budget, checked at its tool calls (issue 50, item 2). Its spend is read from its
// agent's record from where the last read stopped (record-reader.ts), so a call costs a stat and
// the bytes written since the last one. Nothing is read when no budget applies: no LANES_BUDGET
// (lanes new/up --budget) and no [budget.session] in the user config (found by a string search
// before any parse).

import { BUDGET_KEY } from '../../core/budget.js';
export { BUDGET_KEY } from '../../core/budget.js';

export interface BudgetMark {
  /** Hard limits raised by `lanes budget raise` / `lanes continue` (they replace the configured ones). */
  raised?: Limits;
  /** When the session was paused (null: it is not), and by what. */
  pausedAt?: number | null;
  pausedFor?: string | null;
  /** Soft limits already told (usd, tokens, …): each once. */
  told?: string[];
  /** The run's own budget (lanes new/up --budget), as its agent has it in LANES_BUDGET. */
  run?: string;
  /** What it spent, as it last published it for the ticket and night budgets (budget-group.ts). */
  spent?: Spent;
  /** The ticket's and night's spend as it last summed them (budget-group.ts). */
  group?: GroupMark;
  /** Ticket and night limits raised for this session by `lanes continue`. */
  raisedTicket?: Limits;
  raisedNight?: Limits;
}

export interface SessionFigures {
  usage: Usage;
  usd: number;
  wallMs: number;
}

/** The session budget in force: the user config's [budget.session], and over it the run's --budget. */
export function sessionBudget(
  env: Record<string, string | undefined>,
  config: BudgetConfig | undefined,
  mark: BudgetMark = {},
): Budget | null {
  const spec = env['LANES_BUDGET'] || mark.run;
  const run = spec ? parseBudget(spec, 'LANES_BUDGET') : undefined;
  const b: Budget = {
    hard: { ...config?.session?.hard, ...run?.hard },
    soft: { ...config?.session?.soft, ...run?.soft },
  };
  return isEmpty(b) ? null : b;
}

/** Whether the user config mentions [budget] at all: a read and a search, no parse (every tool call asks). */
export function userBudgetMentioned(env: Record<string, string | undefined>): boolean {
  try {
    return readFileSync(userConfigPath(env), 'utf8').includes('[budget');
  } catch {
    return false;
  }
}

/** The user config's [budget], read only when the file mentions one (the hook's path). */
export async function userBudget(env: Record<string, string | undefined>): Promise<BudgetConfig | undefined> {
  return userBudgetMentioned(env) ? (await userConfigOnly(env)).budget : undefined;
}

export function markOf(state: Json | undefined): BudgetMark {
  const m =
    state && typeof state === 'object' && !Array.isArray(state) ? (state as Record<string, Json>)[BUDGET_KEY] : null;
  return m && typeof m === 'object' && !Array.isArray(m) ? (m as unknown as BudgetMark) : {};
}

/** What the session spent so far: its records (and the one this call names), priced; its wall time. */
export function figuresOf(
  ctx: LanesContext,
  s: SessionRecord,
  state: Json | undefined,
  now: number,
  extra?: { agent: string; path: string },
): SessionFigures {
  const home = lanesHome(ctx.env);
  const records = recordsOf(state);
  if (extra && !records.some((r) => r.path === extra.path)) records.push(extra);
  const { usage } = usageOfRecords(join(home, 'spend'), records);
  return { usage, usd: costOf(usage, loadPrices(home).prices).usd, wallMs: now - s.createdAt };
}

const KEYS: [keyof Limits, string][] = [
  ['usd', 'usd'],
  ['tokens', 'tokens'],
  ['toolCalls', 'tool_calls'],
  ['wallMs', 'wall'],
];

function figure(f: SessionFigures, k: keyof Limits): number {
  return k === 'usd' ? f.usd : k === 'tokens' ? totalTokens(f.usage) : k === 'toolCalls' ? f.usage.toolCalls : f.wallMs;
}

export function amountText(k: keyof Limits, v: number): string {
  if (k === 'usd') return `$${v.toFixed(2)}`;
  if (k === 'wallMs') return `${Math.round(v / 60_000)} min`;
  return `${Math.round(v).toLocaleString('en-US')} ${k === 'tokens' ? 'tokens' : 'tool calls'}`;
}

/** The first limit reached, in words (`$5.12 of $5.00 (usd)`), or null. */
export function reached(f: SessionFigures, limits: Limits, skip: string[] = []): { key: string; text: string } | null {
  for (const [k, name] of KEYS) {
    const limit = limits[k];
    if (limit === undefined || skip.includes(name)) continue;
    const v = figure(f, k);
    if (v >= limit) return { key: name, text: `${amountText(k, v)} of ${amountText(k, limit)} (${name})` };
  }
  return null;
}

/** The hard limits in force: the budget's, each replaced where `lanes budget raise` / `lanes continue` raised it. */
export const hardLimits = (b: Budget, m: BudgetMark): Limits => ({ ...b.hard, ...m.raised });

/** `lanes continue`: each hard limit reached is raised by its own size again, from what is spent now. */
export function continued(b: Budget, m: BudgetMark, f: SessionFigures): Limits {
  const hard = hardLimits(b, m);
  const out: Limits = { ...m.raised };
  for (const [k] of KEYS) {
    const limit = hard[k];
    const size = b.hard[k] ?? limit;
    if (limit !== undefined && size !== undefined && figure(f, k) >= limit) out[k] = figure(f, k) + size;
  }
  return out;
}
