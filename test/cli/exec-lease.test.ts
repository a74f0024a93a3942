// lanes exec refreshes its session's lease as every lanes call does: written when older than a
// twelfth of the lease, read and left alone when fresher (no write lock, no WAL frame, no fsync
// in a call that wraps every command an agent runs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gitRepo, lanes, lanesEnv } from '../helpers/env.js';

test('lanes exec writes a stale lease and leaves a fresh one unwritten', async () => {
  const repo = gitRepo();
  const env = lanesEnv();
  const id = (await lanes(['start', '--pid', String(process.pid)], { env, cwd: repo })).stdout.trim();
  const lastSeen = async () =>
    (
      JSON.parse((await lanes(['ls', '--json'], { env, cwd: repo })).stdout) as { id: string; lastSeenAt: number }[]
    ).find((s) => s.id === id)!.lastSeenAt;
  const exec = async (leaseMs: number) => {
    const r = await lanes(['exec', '--', 'true'], {
      env: { ...env, LANES_SESSION: id, LANES_LEASE_MS: String(leaseMs) },
      cwd: repo,
    });
    assert.equal(r.code, 0, r.stderr);
  };
  const started = await lastSeen();
  // A lease of 10 minutes: fresh for 50 s after the start, so exec leaves it.
  await exec(600_000);
  assert.equal(await lastSeen(), started, 'a fresh lease is not written');
  // A lease of 12 ms: stale 1 ms after the start, so exec refreshes it.
  await new Promise((r) => setTimeout(r, 20));
  await exec(12);
  assert.ok((await lastSeen()) > started, 'a stale lease is written');
});
