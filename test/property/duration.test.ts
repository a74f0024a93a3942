import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { formatAge, parseDuration } from '../../src/core/duration.js';
import { codeOf, params } from './runs.js';

// The rules of a duration (--wait, --timeout), as the README states them: one or more NUMBER UNIT
// parts, units ms s m h d, each unit at most once, largest first (`1m30s`); a number may have a
// fraction; surrounding whitespace is ignored; at most 366 days. A bare number (`30`: seconds?
// minutes?), a repeated unit (`1h1h`) and units out of order (`30s1m`) are refused.
const MAX_MS = 366 * 24 * 3_600_000;
const UNIT_MS: Record<string, number> = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000, ms: 1 };
const ORDER = ['d', 'h', 'm', 's', 'ms'];

type Expected = { ok: true; ms: number } | { ok: false };

function expectedDuration(text: string): Expected {
  const parts: { n: string; unit: string }[] = [];
  let rest = text.trim();
  while (rest.length > 0) {
    const m = /^(\d+(?:\.\d+)?)(ms|d|h|m|s)/.exec(rest);
    if (!m?.[1] || !m[2]) return { ok: false };
    parts.push({ n: m[1], unit: m[2] });
    rest = rest.slice(m[0].length);
  }
  if (parts.length === 0) return { ok: false };
  const units = parts.map((p) => p.unit);
  if (new Set(units).size !== units.length) return { ok: false };
  const ranks = units.map((u) => ORDER.indexOf(u));
  if (ranks.some((r, i) => i > 0 && r < (ranks[i - 1] ?? 0))) return { ok: false };
  const total = parts.reduce((sum, p) => sum + Number(p.n) * (UNIT_MS[p.unit] ?? 0), 0);
  return total > MAX_MS ? { ok: false } : { ok: true, ms: Math.round(total) };
}

const number = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 0, max: 100_000 }).map(String) },
  { weight: 1, arbitrary: fc.constantFrom('8784', '8785', '527040', '527041', '9'.repeat(30)) },
  { weight: 2, arbitrary: fc.tuple(fc.nat(999), fc.nat(999)).map(([a, b]) => `${a}.${b}`) },
  { weight: 1, arbitrary: fc.constantFrom('', '007', '.5', '1.', '-1', '+1', '1e3', '\u0661', 'Infinity', ' 1') },
);
const unit = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('ms', 's', 'm', 'h', 'd') },
  { weight: 1, arbitrary: fc.constantFrom('', 'D', 'H', 'sec', 'min', 'µs', 'S', ' s') },
);
const durationText = fc
  .tuple(
    fc.constantFrom('', ' ', '\t', '\n'),
    fc.array(fc.tuple(number, unit), { minLength: 0, maxLength: 4 }),
    fc.constantFrom('', '', '', ' ', '+', ','),
    fc.constantFrom('', ' ', '\n'),
  )
  .map(([lead, parts, sep, trail]) => lead + parts.map(([n, u]) => n + u).join(sep) + trail);

test('parseDuration accepts exactly the documented forms, with the model value; refusals are E_USAGE', () => {
  fc.assert(
    fc.property(fc.oneof({ weight: 9, arbitrary: durationText }, fc.string({ maxLength: 8 })), (text) => {
      const want = expectedDuration(text);
      let got: { ok: true; ms: number } | { ok: false; code: string };
      try {
        got = { ok: true, ms: parseDuration(text, '--wait') };
      } catch (e) {
        got = { ok: false, code: codeOf(e) };
      }
      if (!got.ok) assert.equal(got.code, 'E_USAGE');
      else assert.ok(Number.isSafeInteger(got.ms) && got.ms >= 0, `${JSON.stringify(text)} -> ${got.ms}`);
      if (!want.ok) assert.equal(got.ok, false, `accepted ${JSON.stringify(text)} as ${JSON.stringify(got)}`);
      else assert.deepEqual(got, want, JSON.stringify(text));
    }),
    params(),
  );
});

test('an age formatted for people reads back as a duration no longer than it, to the unit shown', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 48 * 3_600_000 - 1 }), (ms) => {
      const shown = formatAge(ms);
      const back = parseDuration(shown);
      const unit = ms < 3_600_000 ? 1000 : 60_000;
      assert.ok(back <= ms && ms - back < unit, `${ms} ms shown as ${shown}, read back as ${back}`);
    }),
    params(),
  );
});
