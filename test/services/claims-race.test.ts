import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { lanesEnv, node, tmp } from '../helpers/env.js';

const PROCS = Number(process.env['LANES_TEST_CLAIM_PROCS'] ?? 8);
const ROUNDS = Number(process.env['LANES_TEST_CLAIM_ROUNDS'] ?? 500);

test(
  `${PROCS} processes x ${ROUNDS} claims of one resource: exactly one holder at any time`,
  { timeout: 300_000 },
  async () => {
    const home = tmp();
    const env = lanesEnv(home);
    const counter = join(home, 'counter');
    writeFileSync(counter, '0');
    const kids = Array.from({ length: PROCS }, () =>
      node('claimer.mjs', [counter, String(ROUNDS), 'lock:the-one'], { env }),
    );
    await Promise.all(kids.map((k) => k.waitFor(/ready/)));
    for (const k of kids) k.send('go');
    const results = await Promise.all(
      kids.map(async (k) => {
        const exit = await k.exited;
        assert.equal(exit.code, 0, k.stderr);
        const m = k.stdout.match(/tokens ([\d,]+)/);
        assert.ok(m, k.stdout);
        return m[1]!.split(',').map(Number);
      }),
    );
    const all = results.flat().sort((a, b) => a - b);
    // Every grant got a distinct token, 1..N with no gaps: no two grants overlapped in the store.
    assert.deepEqual(
      all,
      Array.from({ length: PROCS * ROUNDS }, (_, i) => i + 1),
    );
    // Each holder's unprotected read-increment-write was alone: not a single increment was lost.
    assert.equal(Number(readFileSync(counter, 'utf8')), PROCS * ROUNDS);
    // Tokens grow within each process too.
    for (const r of results) for (let i = 1; i < r.length; i++) assert.ok(r[i]! > r[i - 1]!);
  },
);
