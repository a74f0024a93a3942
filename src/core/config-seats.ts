import { fail } from './config-fail.js';
import type { ConfigSource } from './config-fail.js';
import { parseDuration } from './duration.js';

/** What a session does when its seat runs out (services/seats/). */
export const ON_EXHAUSTED = ['next', 'wait', 'stop'] as const;
export type OnExhausted = (typeof ON_EXHAUSTED)[number];

/** `[seats]` of the user config: what to do when a seat runs out, per pool or for all. */
export interface SeatsConfig {
  /** next: restart the agent on the next free seat of its pool; wait: until one frees; stop: end the session. */
  onExhausted: OnExhausted;
  /** How long a seat stays exhausted when its agent named no reset time. */
  defaultResetMs: number;
  /**
   * Per pool: `[seats.pools.NAME] on_exhausted = "wait"`; `pay_per_use_next = true`: a session a
   * person started on one of its pay-per-use seats may move to another (its flat seats first).
   * Off by default: a key that hit its cap is a brake nobody should release at 3 AM unasked.
   */
  pools: Record<string, { onExhausted?: OnExhausted; payPerUseNext: boolean }>;
}

export const DEFAULT_SEATS: SeatsConfig = { onExhausted: 'next', defaultResetMs: 60 * 60_000, pools: {} };

const POOL = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

function onExhausted(src: ConfigSource, section: string, v: unknown): OnExhausted {
  if (typeof v !== 'string' || !(ON_EXHAUSTED as readonly string[]).includes(v))
    fail(src, section, 'on_exhausted', `one of ${ON_EXHAUSTED.map((x) => `"${x}"`).join(', ')}`, v);
  return v as OnExhausted;
}

/** `[seats] on_exhausted = "next"`, `default_reset = "1h"`, `[seats.pools.NAME] on_exhausted = "wait"`, `pay_per_use_next`. */
export function validateSeats(src: ConfigSource, t: Record<string, unknown>): SeatsConfig {
  const out: SeatsConfig = structuredClone(DEFAULT_SEATS);
  for (const [k, v] of Object.entries(t)) {
    if (k === 'on_exhausted') out.onExhausted = onExhausted(src, 'seats', v);
    else if (k === 'default_reset') {
      let ms = NaN;
      try {
        ms = typeof v === 'string' ? parseDuration(v) : NaN;
      } catch {
        // said below
      }
      if (!(ms >= 60_000)) fail(src, 'seats', k, 'a duration of a minute or more, such as "30m", "2h" or "1d"', v);
      out.defaultResetMs = ms;
    } else if (k === 'pools') {
      if (typeof v !== 'object' || v === null || Array.isArray(v))
        fail(src, 'seats', k, 'tables [seats.pools.NAME] with on_exhausted');
      for (const [pool, settings] of Object.entries(v as Record<string, unknown>)) {
        if (!POOL.test(pool)) fail(src, 'seats.pools', pool, 'a pool name (letters, digits, . _ -; at most 64)');
        if (typeof settings !== 'object' || settings === null || Array.isArray(settings))
          fail(src, 'seats.pools', pool, 'a table with on_exhausted or pay_per_use_next');
        const table = settings as Record<string, unknown>;
        for (const sk of Object.keys(table))
          if (sk !== 'on_exhausted' && sk !== 'pay_per_use_next')
            fail(src, `seats.pools.${pool}`, sk, 'on_exhausted or pay_per_use_next (unknown key)');
        const next = table['pay_per_use_next'] ?? false;
        if (typeof next !== 'boolean') fail(src, `seats.pools.${pool}`, 'pay_per_use_next', 'true or false', next);
        if (table['on_exhausted'] === undefined && table['pay_per_use_next'] === undefined)
          fail(src, 'seats.pools', pool, 'a table with on_exhausted or pay_per_use_next');
        out.pools[pool] = {
          ...(table['on_exhausted'] !== undefined
            ? { onExhausted: onExhausted(src, `seats.pools.${pool}`, table['on_exhausted']) }
            : {}),
          payPerUseNext: next as boolean,
        };
      }
    } else fail(src, 'seats', k, 'on_exhausted, default_reset or pools (unknown key)');
  }
  return out;
}
