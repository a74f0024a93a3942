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
    // The README's four incidents, each reproduced without lanes beside its protection, and the claims.
    assert.equal(out.checks.length, 14);
    assert.ok(out.checks.every((c) => c.ok));
    for (const name of [
      'the incident reproduces without lanes',
      'the index sweep reproduces without lanes',
      'the guard refuses a plain git commit from a shared index, and the index stays as it was',
      'the stale save sweep reproduces without lanes',
      'lanes sweep flags the collision and the stale copy and publishes nothing',
    ])
      assert.ok(
        out.checks.some((c) => c.name === name),
        name,
      );
    // Every line of the human output whole: nothing cut mid-word with "...".
    const text = await lanes(['demo'], { env: lanesEnv() });
    assert.equal(text.code, 0, text.stdout);
    assert.doesNotMatch(text.stdout, /\w\.\.\.$/m);
  },
);
