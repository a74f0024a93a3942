import { parseDuration } from './duration.js';
import { LanesError } from './errors.js';

// A budget (issue 50, item 2): limits on what a session (or a ticket's sessions, or the night's)
// may spend, in money (an estimate: services/spend/prices.ts), tokens, tool calls and wall time.
// A hard limit pauses the session (its next tool calls are denied with a message that tells the
// model to stop, summarize and wait); a soft one tells the user. Written the same way in the user
// config's [budget.session] / [budget.ticket] / [budget.night] and in `lanes new/up --budget`:
// usd=5,tokens=2M,tool_calls=400,wall=4h,soft_usd=3.

export interface Limits {
  usd?: number;
  tokens?: number;
  toolCalls?: number;
  wallMs?: number;
}

export interface Budget {
  hard: Limits;
  soft: Limits;
}

export const LIMIT_KEYS = ['usd', 'tokens', 'tool_calls', 'wall'] as const;
type Key = (typeof LIMIT_KEYS)[number];
const FIELD: Record<Key, keyof Limits> = { usd: 'usd', tokens: 'tokens', tool_calls: 'toolCalls', wall: 'wallMs' };

export const BUDGET_HELP = 'usd=5,tokens=2M,tool_calls=400,wall=4h (soft_ before a key: tell me, do not pause)';

/** `2M`, `250k`, `1500`: a count. */
function countOf(v: string): number | null {
  const m = /^(\d+(?:\.\d+)?)([kKmM]?)$/.exec(v.replace(/_/g, ''));
  if (!m) return null;
  const n = Number(m[1]) * (m[2] === '' ? 1 : /k/i.test(m[2]!) ? 1e3 : 1e6);
  return Number.isFinite(n) ? Math.round(n) : null;
}

/** One key's value: usd a number of dollars, wall a duration, the others a count. Throws naming what is wrong. */
export function limitValue(
  key: string,
  value: unknown,
  where: string,
): { soft: boolean; field: keyof Limits; value: number } {
  const soft = key.startsWith('soft_');
  const bare = (soft ? key.slice(5) : key) as Key;
  if (!LIMIT_KEYS.includes(bare))
    throw new LanesError('E_USAGE', `${where}: unknown budget key ${JSON.stringify(key)}`, {
      hint: `the keys: ${LIMIT_KEYS.join(', ')}, each also as soft_KEY; e.g. ${BUDGET_HELP}`,
    });
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
  let n: number | null;
  if (bare === 'wall') n = text ? parseDuration(text, `${where}: ${key}`) : null;
  else if (bare === 'usd') n = /^\$?\d+(\.\d+)?$/.test(text) ? Number(text.replace('$', '')) : null;
  else n = countOf(text);
  if (n === null || !(n > 0))
    throw new LanesError(
      'E_USAGE',
      `${where}: ${key} must be ${bare === 'wall' ? 'a duration like 4h' : bare === 'usd' ? 'an amount of US dollars like 5 or 2.50' : 'a count like 400, 250k or 2M'} above 0, not ${JSON.stringify(value)}`,
      {
        hint: `e.g. ${BUDGET_HELP}`,
      },
    );
  return { soft, field: FIELD[bare], value: n };
}

/** `usd=5,tokens=2M,soft_usd=3` (lanes new/up --budget). */
export function parseBudget(text: string, where = '--budget'): Budget {
  const out: Budget = { hard: {}, soft: {} };
  const parts = text.split(/[,\s]+/).filter(Boolean);
  if (!parts.length) throw new LanesError('E_USAGE', `${where} is empty`, { hint: `e.g. ${BUDGET_HELP}` });
  for (const p of parts) {
    const eq = p.indexOf('=');
    if (eq <= 0)
      throw new LanesError('E_USAGE', `${where}: ${JSON.stringify(p)} is not KEY=VALUE`, {
        hint: `e.g. ${BUDGET_HELP}`,
      });
    const l = limitValue(p.slice(0, eq), p.slice(eq + 1), where);
    (l.soft ? out.soft : out.hard)[l.field] = l.value;
  }
  return out;
}

export const isEmpty = (b: Budget | undefined): boolean =>
  !b || (Object.keys(b.hard).length === 0 && Object.keys(b.soft).length === 0);

/** A budget in the form --budget reads: what `lanes budget` shows and a run passes to its agent. */
export function budgetText(b: Budget): string {
  const one = (l: Limits, pre: string) =>
    [
      l.usd !== undefined ? `${pre}usd=${l.usd}` : '',
      l.tokens !== undefined ? `${pre}tokens=${l.tokens}` : '',
      l.toolCalls !== undefined ? `${pre}tool_calls=${l.toolCalls}` : '',
      l.wallMs !== undefined ? `${pre}wall=${Math.round(l.wallMs / 1000)}s` : '',
    ].filter(Boolean);
  return [...one(b.hard, ''), ...one(b.soft, 'soft_')].join(',');
}

/** The budget of each scope in the user config's [budget] (budget.session, .ticket, .night) and grace. */
export interface BudgetConfig {
  session?: Budget;
  ticket?: Budget;
  night?: Budget;
  /** How long a paused session waits for `lanes continue` before it is stopped (snapshot first). */
  graceMs: number;
  /** A runaway (services/spend/runaway.ts): the same failing call this many times in a row (0: off). */
  runawayRepeats?: number;
  /** A runaway: tokens spent this long with no change to the worktree (0: off). */
  runawayIdleMs?: number;
}

export const DEFAULT_GRACE_MS = 30 * 60_000;

/** Session state key: the budget's own record on the session (services/spend; reserved for lanes). */
export const BUDGET_KEY = 'lanes:budget';
