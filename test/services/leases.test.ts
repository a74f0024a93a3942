import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gitRepo, lanes, lanesEnv, owner, watching } from '../helpers/env.js';
import { PG_SKIP, pgSchemaUrl } from '../helpers/pg.js';

// Issue 45, item 7: leases follow life. On a team store another host judges a session by its lease
// (last heartbeat + LANES_LEASE_MS), and an agent thinking for hours makes no lanes call: the
// per-host watcher renews the lease of every session whose owner it proves alive on its host. A's
// agent idle for 5 leases keeps its claim against B; A's owner killed, B takes it within 2 leases.

test(
  "a live owner's lease is renewed by its host's watcher; a dead owner's lapses within a lease",
  { skip: PG_SKIP, timeout: 60_000 },
  async () => {
    const { url, drop } = pgSchemaUrl();
    try {
      const repo = gitRepo();
      const lease = 1000;
      const team = (host: string) => ({
        env: watching({ ...lanesEnv(), LANES_STORE: url, LANES_HOST_ID: host, LANES_LEASE_MS: String(lease) }),
        cwd: repo,
      });
      const a = team('host-a');
      const b = { ...team('host-b'), env: { ...team('host-b').env, LANES_WATCH: '0' } };
      const agent = await owner(a.env);
      const started = await lanes(['start', '--label', 'thinker', '--pid', agent.pid], a);
      assert.equal(started.code, 0, started.stderr);
      const id = started.stdout.trim();
      assert.equal((await lanes(['claim', 'ticket:DEPLOY-1', '--session', id], a)).code, 0);
      // Five leases with no lanes call of A's: only its watcher renews it.
      await new Promise((r) => setTimeout(r, 5 * lease));
      const refused = await lanes(
        ['claim', 'ticket:DEPLOY-1', '--session', (await lanes(['start', '--pid', agent.pid], b)).stdout.trim()],
        b,
      );
      assert.equal(refused.code, 3, `B must not take a live owner's claim: ${refused.stderr}${refused.stdout}`);
      // A's owner dies: its lease lapses; B takes the claim within two leases.
      await agent.kill();
      const t0 = Date.now();
      const bOwner = await owner(b.env);
      const bId = (await lanes(['start', '--pid', bOwner.pid], b)).stdout.trim();
      let got = false;
      while (!got && Date.now() - t0 < 4 * lease) {
        got = (await lanes(['claim', 'ticket:DEPLOY-1', '--session', bId], b)).code === 0;
        if (!got) await new Promise((r) => setTimeout(r, 100));
      }
      const ms = Date.now() - t0;
      assert.ok(got && ms <= 2 * lease + 500, `B took it after ${ms} ms`);
      await bOwner.kill();
    } finally {
      await drop();
    }
  },
);
