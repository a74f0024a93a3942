import { LanesError } from './errors.js';

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Parses `500ms`, `30s`, `2m`, `1h`, `1m30s` or a bare number of seconds. */
export function parseDuration(text: string, flag = 'duration'): number {
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const parts = [...trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  const joined = parts.map((p) => p[0]).join('');
  if (parts.length === 0 || joined !== trimmed) {
    throw new LanesError('E_USAGE', `${flag}: cannot read ${JSON.stringify(text)} as a duration`, {
      hint: 'write a duration like 500ms, 30s, 2m, 1h or 1m30s',
    });
  }
  return Math.round(parts.reduce((sum, p) => sum + Number(p[1]) * (UNITS[p[2] ?? 's'] ?? 1000), 0));
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
