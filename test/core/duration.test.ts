import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDuration } from '../../src/core/duration.js';

test('durations: a number and a unit, units largest first, each at most once', () => {
  const ok: Array<[string, number]> = [
    ['500ms', 500],
    ['30s', 30_000],
    ['2m', 120_000],
    ['1h', 3_600_000],
    ['1m30s', 90_000],
    ['1h2m3s4ms', 3_723_004],
    ['1.5s', 1500],
    [' 10s ', 10_000],
    ['0s', 0],
  ];
  for (const [text, ms] of ok) assert.equal(parseDuration(text), ms, text);
});

test('durations a reader could misread are refused (issue 13, item 7)', () => {
  const refused: Array<[string, RegExp]> = [
    ['30', /no unit.*30s/],
    ['1.5', /no unit/],
    ['1h1h', /"h" twice/],
    ['30s1m', /largest unit first/],
    ['1s500ms1s', /out of order/],
    ['', /cannot read/],
    ['s', /cannot read/],
    ['10x', /cannot read/],
    ['-5s', /cannot read/],
    ['1 h', /cannot read/],
    ['٣s', /cannot read/],
    ['9'.repeat(400) + 's', /too long/],
  ];
  for (const [text, why] of refused) {
    assert.throws(
      () => parseDuration(text, '--wait'),
      (e: { code?: string; message?: string; hint?: string }) =>
        e.code === 'E_USAGE' && /^--wait: /.test(e.message ?? '') && why.test(`${e.message} ${e.hint}`),
      JSON.stringify(text),
    );
  }
});
