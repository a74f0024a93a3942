import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'smol-toml';
import { validateConfig } from '../../src/core/config.js';

// [seats] of the user config: on_exhausted per pool, and pay_per_use_next, off unless a pool says
// so (a key that hit its cap is a brake). A wrong value names the file, the line and what to write.

const check = (text: string) =>
  validateConfig({ file: '/u/config.toml', text, data: parse(text) as Record<string, unknown> }, { user: true });

test('[seats.pools.NAME] pay_per_use_next: a boolean, alone or beside on_exhausted; a wrong one is a clear error', () => {
  const ok = check('[seats.pools.keys]\npay_per_use_next = true\n[seats.pools.max]\non_exhausted = "wait"\n');
  assert.deepEqual(ok.seats?.pools, {
    keys: { payPerUseNext: true },
    max: { onExhausted: 'wait', payPerUseNext: false },
  });
  const bad: [string, RegExp][] = [
    ['[seats.pools.keys]\npay_per_use_next = "yes"\n', /config\.toml:2.*pay_per_use_next.*true or false/s],
    ['[seats.pools.keys]\npay_per_use = true\n', /on_exhausted or pay_per_use_next \(unknown key\)/],
    ['[seats.pools.keys]\n[seats.pools.keys.x]\n', /on_exhausted or pay_per_use_next \(unknown key\)/],
    ['[seats]\npools = { keys = {} }\n', /a table with on_exhausted or pay_per_use_next/],
  ];
  for (const [text, said] of bad)
    assert.throws(
      () => check(text),
      (e: Error & { code?: string }) => e.code === 'E_CONFIG' && said.test(e.message),
      text,
    );
});
