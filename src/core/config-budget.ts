import { DEFAULT_GRACE_MS, limitValue } from './budget.js';
import type { Budget, BudgetConfig } from './budget.js';
import { parseDuration } from './duration.js';
import { fail } from './config-fail.js';
import type { ConfigSource } from './config-fail.js';

export type { BudgetConfig } from './budget.js';
export const DEFAULT_BUDGET: BudgetConfig = { graceMs: DEFAULT_GRACE_MS };

const SCOPES = ['session', 'ticket', 'night'] as const;

/**
 * `[budget]` of the user config: `grace = "30m"`, and `[budget.session]`, `[budget.ticket]`,
 * `[budget.night]` each of usd, tokens, tool_calls, wall and their soft_ forms.
 */
export function validateBudget(src: ConfigSource, t: Record<string, unknown>): BudgetConfig {
  const out: BudgetConfig = { graceMs: DEFAULT_GRACE_MS };
  for (const [k, v] of Object.entries(t)) {
    if (k === 'grace') {
      if (typeof v !== 'string') fail(src, 'budget', k, 'a duration like "30m"', v);
      try {
        out.graceMs = parseDuration(v as string, 'budget.grace');
      } catch {
        fail(src, 'budget', k, 'a duration like "30m"', v);
      }
      continue;
    }
    if (k === 'runaway_repeats') {
      if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 1000)
        fail(src, 'budget', k, 'a whole number of failed calls in a row, 2 to 1000 (0: not watched)', v);
      out.runawayRepeats = v as number;
      continue;
    }
    if (k === 'runaway_idle') {
      let ms = -1;
      try {
        ms = typeof v === 'string' ? (v.trim() === '0' ? 0 : parseDuration(v, 'budget.runaway_idle')) : -1;
      } catch {
        ms = -1;
      }
      if (ms < 0) fail(src, 'budget', k, 'a duration like "20m" ("0": not watched)', v);
      out.runawayIdleMs = ms;
      continue;
    }
    if (!(SCOPES as readonly string[]).includes(k))
      fail(
        src,
        'budget',
        k,
        'grace, runaway_repeats, runaway_idle, or a table [budget.session], [budget.ticket] or [budget.night]',
      );
    if (!v || typeof v !== 'object' || Array.isArray(v))
      fail(src, 'budget', k, 'a table of usd, tokens, tool_calls, wall', v);
    const b: Budget = { hard: {}, soft: {} };
    for (const [key, value] of Object.entries(v as Record<string, unknown>)) {
      try {
        const l = limitValue(key, value, `budget.${k}`);
        (l.soft ? b.soft : b.hard)[l.field] = l.value;
      } catch (e) {
        fail(src, `budget.${k}`, key, (e as Error).message.replace(/^budget\.\w+: /, ''));
      }
    }
    out[k as (typeof SCOPES)[number]] = b;
  }
  return out;
}
