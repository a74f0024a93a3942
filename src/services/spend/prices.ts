import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Tokens, Usage } from '../../core/usage.js';

// What tokens cost, in US dollars per million, by model name prefix (the longest that matches):
// an estimate from the providers' list prices as lanes last knew them (2026-12), never fetched.
// The user's own table, $LANES_HOME/prices.json, is laid over it: the same shape, e.g.
// {"claude-opus-4": {"input": 15, "output": 75, "cacheRead": 1.5, "cacheWrite": 18.75}}.

export type Price = Tokens;

const DEFAULTS: Record<string, Price> = {
  'claude-opus-4-5': { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
  'claude-opus-4': { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
  'claude-sonnet-4': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  'claude-haiku-4': { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
  'claude-3-5-haiku': { input: 0.8, output: 4, cacheRead: 0.08, cacheWrite: 1 },
  'gpt-5': { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 1.25 },
  'gpt-5-mini': { input: 0.25, output: 2, cacheRead: 0.025, cacheWrite: 0.25 },
  'gemini-2.5-pro': { input: 1.25, output: 10, cacheRead: 0.31, cacheWrite: 1.25 },
  'gemini-2.5-flash': { input: 0.3, output: 2.5, cacheRead: 0.075, cacheWrite: 0.3 },
};

export const PRICES_FILE = 'prices.json';

export interface PriceTable {
  prices: Record<string, Price>;
  /** What is wrong with the user's file (it is then not used), or null. */
  problem: string | null;
}

const PARTS = ['input', 'output', 'cacheRead', 'cacheWrite'] as const;

export function loadPrices(home: string): PriceTable {
  const file = join(home, PRICES_FILE);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return { prices: DEFAULTS, problem: null };
  }
  try {
    const user = JSON.parse(text) as unknown;
    if (!user || typeof user !== 'object' || Array.isArray(user)) throw new Error('not a JSON object');
    const out: Record<string, Price> = { ...DEFAULTS };
    for (const [model, p] of Object.entries(user as Record<string, unknown>)) {
      const o = p as Record<string, unknown> | null;
      if (!o || typeof o !== 'object')
        throw new Error(`${model}: not an object of input, output, cacheRead, cacheWrite`);
      const price = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
      for (const k of PARTS) {
        const v = o[k] ?? 0;
        if (typeof v !== 'number' || !Number.isFinite(v) || v < 0)
          throw new Error(`${model}.${k}: a number of US dollars per million tokens, not ${JSON.stringify(v)}`);
        price[k] = v;
      }
      out[model] = price;
    }
    return { prices: out, problem: null };
  } catch (e) {
    return { prices: DEFAULTS, problem: `${file}: ${(e as Error).message}; lanes' own table is used` };
  }
}

/** The price of a model: its longest matching prefix in the table; null when none matches. */
export function priceOf(table: Record<string, Price>, model: string): Price | null {
  let best: string | null = null;
  for (const k of Object.keys(table)) if (model.startsWith(k) && (!best || k.length > best.length)) best = k;
  return best ? table[best]! : null;
}

/** US dollars, and the models no price matched (their tokens are not in the figure). */
export function costOf(u: Usage, table: Record<string, Price>): { usd: number; unpriced: string[] } {
  let usd = 0;
  const unpriced: string[] = [];
  for (const [model, t] of Object.entries(u.byModel)) {
    const p = priceOf(table, model);
    if (!p) {
      if (t.input + t.output + t.cacheRead + t.cacheWrite > 0) unpriced.push(model);
      continue;
    }
    for (const k of PARTS) usd += (t[k] * p[k]) / 1_000_000;
  }
  return { usd, unpriced };
}
