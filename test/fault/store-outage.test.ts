import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openLanes } from '../../src/index.js';
import { gitRepo, lanesChild, lanesEnv, tmp } from '../helpers/env.js';
import { PG_SKIP } from '../helpers/pg.js';
import { proxiedSchema } from '../helpers/tcp-proxy.js';
import type { TcpProxy } from '../helpers/tcp-proxy.js';
import { call, errorCode, mcpAgent } from '../helpers/mcp.js';
import { http, startUi } from '../helpers/ui.js';

// Issue 24, item 7: the long-lived processes ride out a store outage of any length (here several
// seconds, well past the ~1.5 s lanes log -f used to survive): one notice when it starts, one when
// it ends, and on with the work. The outage is a partition at a TCP proxy in front of PostgreSQL.

async function world() {
  const { url, via, proxy, drop } = await proxiedSchema();
  const lib = await openLanes({ store: url, env: lanesEnv(), cwd: tmp(), notice: false, session: null });
  const env = { ...lanesEnv(), LANES_STORE: via };
  return { proxy, lib, env, drop };
}

/** Waits until the outage has been noticed, then a few seconds more: longer than any retry budget. */
async function outage(proxy: TcpProxy, noticed: () => Promise<unknown>): Promise<void> {
  proxy.cut();
  await noticed();
  await new Promise((r) => setTimeout(r, 4000));
}

test(
  'lanes log -f rides out an outage: one notice each way, then the entries made meanwhile, none lost or doubled',
  { skip: PG_SKIP, timeout: 120_000 },
  async () => {
    const { proxy, lib, env, drop } = await world();
    try {
      const follower = lanesChild(['log', '-f', '--json'], { env });
      const first = (await lib.sessions.start({ pid: process.pid, label: 'before' })).id;
      await follower.waitFor(new RegExp(first));
      await outage(proxy, () =>
        follower.waitFor(/the store is unreachable .* lanes log --follow keeps trying/, 'stderr'),
      );
      // Made directly (not through the proxy) while the follower cannot see the store.
      const during = (await lib.sessions.start({ pid: process.pid, label: 'during' })).id;
      proxy.restore();
      await follower.waitFor(new RegExp(during));
      await follower.waitFor(/the store is back after \d+\.\d s/, 'stderr');
      assert.equal(follower.proc.exitCode, null, 'still following');
      assert.equal(follower.stderr.match(/unreachable/g)?.length, 1, follower.stderr);
      const seqs = follower.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { seq: number }).seq);
      assert.deepEqual(
        seqs,
        [...new Set(seqs)].sort((a, b) => a - b),
        'in order, none twice',
      );
      follower.proc.kill('SIGINT');
      assert.equal((await follower.exited).code, 0);
    } finally {
      await lib.close({ heartbeat: false });
      await drop();
    }
  },
);

test(
  'lanes mcp stays up through an outage: calls during it are tool errors naming the store, calls after it work',
  { skip: PG_SKIP, timeout: 120_000 },
  async () => {
    const { proxy, lib, env, drop } = await world();
    try {
      const repo = gitRepo();
      const { client, stderr } = await mcpAgent('outage-a', repo, env);
      assert.equal((await call(client, 'claim', { resources: ['ticket:OUT-1'] })).isError, undefined);
      proxy.cut();
      const during = await call(client, 'claims');
      assert.equal(errorCode(during), 'E_STORE_IO');
      await new Promise((r) => setTimeout(r, 3000));
      assert.equal(errorCode(await call(client, 'whoami')), 'E_STORE_IO');
      proxy.restore();
      const after = await call(client, 'claims');
      assert.equal(after.isError, undefined, JSON.stringify(after));
      assert.match(JSON.stringify(after.structuredContent), /OUT-1/);
      assert.equal(stderr().match(/the store is unreachable/g)?.length, 1, stderr());
      assert.match(stderr(), /the store is back after/);
    } finally {
      await lib.close({ heartbeat: false });
      await drop();
    }
  },
);

test(
  'lanes ui keeps serving through an outage and shows what was made meanwhile',
  { skip: PG_SKIP, timeout: 120_000 },
  async () => {
    const { proxy, lib, env, drop } = await world();
    try {
      const repo = gitRepo();
      const ui = await startUi(env, repo);
      await outage(proxy, () => ui.child.waitFor(/the store is unreachable .* lanes ui keeps trying/, 'stderr'));
      const page = await http(ui.port, `/?token=${ui.token}`);
      assert.equal(page.status, 200, 'the page is still served');
      const made = (await lib.sessions.start({ pid: process.pid, label: 'made-during-outage' })).id;
      proxy.restore();
      await ui.child.waitFor(/the store is back after/, 'stderr');
      for (;;) {
        const fleet = await http(ui.port, '/api/fleet', { headers: { 'x-lanes-token': ui.token } });
        if (fleet.body.includes(made)) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal(ui.child.stderr.match(/unreachable/g)?.length, 1, ui.child.stderr);
      assert.equal(ui.child.proc.exitCode, null);
      await ui.stop();
    } finally {
      await lib.close({ heartbeat: false });
      await drop();
    }
  },
);
