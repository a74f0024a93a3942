import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lanes, lanesEnv } from '../helpers/env.js';

test(
  'lanes demo shows every protection holding, with the incident reproduced beside it',
  { timeout: 120_000 },
  async () => {
    const r = await lanes(['demo', '--json'], { env: lanesEnv() });
    assert.equal(r.code, 0, r.stderr + r.stdout);
    const out = JSON.parse(r.stdout) as { ok: boolean; checks: { name: string; ok: boolean }[] };
    assert.equal(out.ok, true);
    assert.equal(out.checks.length, 9);
    assert.ok(out.checks.every((c) => c.ok));
  },
);
