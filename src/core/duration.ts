import { LanesError } from './errors.js';

const UNITS: Record<string, number> = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000, ms: 1 };
const ORDER = ['d', 'h', 'm', 's', 'ms'];
/** Longer than anyone waits for a claim; also keeps the sum a safe integer. */
const MAX_MS = 366 * 24 * 3_600_000;

function usage(flag: string, text: string, why: string, hint = 'write a duration like 500ms, 30s, 2m, 1h or 1m30s') {
  return new LanesError('E_USAGE', `${flag}: ${why} in ${JSON.stringify(text)}`, { hint });
}

/**
 * Parses `500ms`, `30s`, `2m`, `1h`, `1m30s`, `30d`: numbers each with a unit, largest unit first, each
 * unit at most once. A bare `30` is refused rather than guessed (seconds? minutes?), and `1h1h`
 * or `30s1m` are refused as likely typos.
 */
export function parseDuration(text: string, flag = 'duration'): number {
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed))
    throw usage(flag, text, 'no unit', `say the unit: ${trimmed}s, ${trimmed}m or ${trimmed}ms`);
  const parts = [...trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== trimmed)
    throw new LanesError('E_USAGE', `${flag}: cannot read ${JSON.stringify(text)} as a duration`, {
      hint: 'write a duration like 500ms, 30s, 2m, 1h or 1m30s',
    });
  let last = -1;
  let total = 0;
  for (const [, num, unit] of parts) {
    const at = ORDER.indexOf(unit ?? '');
    if (at === last) throw usage(flag, text, `the unit "${unit}" twice`);
    if (at < last) throw usage(flag, text, 'units out of order', 'write the largest unit first, as in 1m30s');
    last = at;
    total += Number(num) * (UNITS[unit ?? ''] ?? 0);
  }
  if (!(total <= MAX_MS)) throw usage(flag, text, 'a duration too long', 'use at most 366 days (366d)');
  return Math.round(total);
}

/** A moment to the minute, in UTC: `2026-12-05 21:36 UTC` (resets, waits: what a person plans by). */
export function utcMinute(ms: number): string {
  return `${new Date(ms).toISOString().replace('T', ' ').slice(0, 16)} UTC`;
}

export function formatAge(ms: number): string {
  if (ms < 0) ms = 0;
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${s % 60 ? `${s % 60}s` : ''}`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h${m % 60 ? `${m % 60}m` : ''}`;
  return `${Math.floor(h / 24)}d`;
}
