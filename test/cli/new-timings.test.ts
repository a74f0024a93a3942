import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gitRepo, lanes, lanesEnv } from '../helpers/env.js';

// Issue 48, item 4: lanes new says where its time goes (--json `timings`, ms per phase, launch.ts),
// so a slow start can be told apart: the checkout, the trust gate, setup, the terminal. Only that
// each phase is there and a duration: speed is bench/start-worktree.mjs's, never a test's.

const PHASES = [
  'checks',
  'ticket',
  'worktree',
  'trust',
  'register',
  'setup',
  'seat',
  'hooks',
  'tmux',
  'wrapper',
  'settle',
];

test('lanes new --json reports the ms of each phase of the start', async () => {
  const env = lanesEnv();
  const repo = gitRepo();
  const r = await lanes(
    ['new', 'TIME-1', '--background', '--json', '--', process.execPath, '-e', 'setTimeout(() => {}, 3000)'],
    {
      env,
      cwd: repo,
    },
  );
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout) as { session: string; timings: Record<string, unknown> };
  assert.deepEqual(Object.keys(out.timings).sort(), [...PHASES].sort());
  for (const p of PHASES) {
    const ms = out.timings[p];
    assert.ok(typeof ms === 'number' && Number.isFinite(ms) && ms >= 0, `${p}: ${String(ms)}`);
  }
  // The worktree's phase holds the checkout: never nothing.
  assert.ok((out.timings['worktree'] as number) > 0);
  await lanes(['end', out.session, '--force'], { env, cwd: repo });
});
