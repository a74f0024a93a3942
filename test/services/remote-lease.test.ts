import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { gitRepo, lanes, lanesEnv, tmp } from '../helpers/env.js';

// Sessions on another host are judged by their lease: alive while they heartbeat, whatever their
// age. Two "hosts" share one store here (distinct LANES_HOST_ID, as containers do); PostgreSQL runs
// the same judgement in test/services/multi-host.test.ts when a server is there.
test(
  'a remote holder older than its lease but heartbeating is never taken over; once it stops, it is after one lease',
  { timeout: 60_000 },
  async () => {
    const LEASE = 3000;
    const repo = gitRepo();
    const store = join(tmp(), 'team.db');
    const env = (host: string) => ({
      ...lanesEnv(),
      LANES_STORE: store,
      LANES_HOST_ID: host,
      LANES_LEASE_MS: String(LEASE),
    });
    const r = (await lanes(['start', '--pid', String(process.pid)], { env: env('host-a'), cwd: repo })).stdout.trim();
    const asR = { env: { ...env('host-a'), LANES_SESSION: r }, cwd: repo };
    assert.equal((await lanes(['claim', 'ticket:SEAT-1'], asR)).code, 0);
    const created = Date.now();
    const b = (await lanes(['start', '--pid', String(process.pid)], { env: env('host-b'), cwd: repo })).stdout.trim();
    const asB = { env: { ...env('host-b'), LANES_SESSION: b }, cwd: repo };
    // R heartbeats (every lanes call of a session does) for more than two leases: time has to pass
    // here, since what is tested is judging by the last heartbeat rather than by the start.
    while (Date.now() - created < 2 * LEASE + 500) assert.equal((await lanes(['whoami'], asR)).code, 0);
    const refused = await lanes(['claim', 'ticket:SEAT-1'], asB);
    assert.equal(refused.code, 3, `a heartbeating remote holder was taken over: ${refused.stdout}${refused.stderr}`);
    assert.match(refused.stderr, new RegExp(`held by .*${r}`));
    // R stops heartbeating: after one lease its claim goes to B with a new token.
    const listed = JSON.parse((await lanes(['ls', '--json'], asB)).stdout) as Array<{ id: string; lastSeenAt: number }>;
    const lastBeat = listed.find((s) => s.id === r)?.lastSeenAt ?? 0;
    assert.ok(lastBeat - created > LEASE, 'R heartbeated past its first lease');
    let took;
    do took = await lanes(['claim', 'ticket:SEAT-1', '--json'], asB);
    while (took.code === 3 && Date.now() - lastBeat < 4 * LEASE);
    assert.equal(took.code, 0, took.stderr);
    assert.ok(Date.now() - lastBeat >= LEASE, 'not before the lease ran out');
    assert.equal(JSON.parse(took.stdout)[0].token, 2);
  },
);
