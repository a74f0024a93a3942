import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as Pg from 'pg';
import { lanes, lanesEnv, tmp } from '../helpers/env.js';
import { PG_SKIP, fillServer, pgSchemaUrl } from '../helpers/pg.js';

// Issue 48, item 3: more hosts than the server has connections. Each host's broker keeps one server
// connection while its clients come and go; on a crowded server that would starve a host whose
// broker has none (it waits, then its calls fail open). A broker that finds the server crowded
// gives back the connection it is not using, so the waiting one gets it: the server's connections
// are shared in turn, not held.

async function until(what: string, ok: () => boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

interface Status {
  pid: number;
  pool: { open: number; refused: number };
}

function brokerDir(runtime: string): string {
  const root = join(runtime, 'lanes', 'broker');
  return join(root, readdirSync(root)[0] as string);
}

const status = (dir: string) => JSON.parse(readFileSync(join(dir, 'broker.json'), 'utf8')) as Status;

test(
  'a crowded server: a host whose broker holds an idle connection gives it back to the host that has none; nothing is refused',
  { skip: PG_SKIP, timeout: 120_000 },
  async () => {
    const { url, drop } = pgSchemaUrl();
    const host = (name: string) => {
      const runtime = tmp(`lanes-run-${name}-`);
      // Brokers that stay (the tests' default lets one leave after 2 s idle, taking its connection with it).
      const env = { ...lanesEnv(), LANES_STORE: url, XDG_RUNTIME_DIR: runtime, LANES_HOST_ID: name };
      return { runtime, env: { ...env, LANES_BROKER_IDLE_MS: '60000' } };
    };
    const a = host('host-a');
    const b = host('host-b');
    const held: Pg.Client[] = [];
    const pids: number[] = [];
    try {
      assert.equal((await lanes(['ls'], { env: a.env })).code, 0, 'host A: the schema made, its broker started');
      const aDir = brokerDir(a.runtime);
      pids.push(status(aDir).pid);
      assert.equal(status(aDir).pool.open, 1, "host A's broker holds its one connection, idle");
      // Every connection the server has left, taken (as the fleet's other hosts would).
      await fillServer(held);
      // Host B has no broker yet: its call starts one, which finds the server full and waits.
      const call = lanes(['ls', '--json'], { env: b.env });
      const r = await call;
      assert.equal(r.code, 0, r.stderr);
      assert.doesNotMatch(r.stderr, /too many|reserved|could not check|failed open/i);
      assert.deepEqual(JSON.parse(r.stdout), []);
      const bDir = brokerDir(b.runtime);
      pids.push(status(bDir).pid);
      assert.match(readFileSync(join(bDir, 'broker.log'), 'utf8'), /wait for a first connection|full for now/);
      // It was host A's connection: A's broker saw the server crowded and gave it back.
      await until("host A's broker says it holds none", () => status(aDir).pool.open === 0);
      assert.ok(existsSync(join(bDir, '.s.PGSQL.5432')));
    } finally {
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGTERM');
        } catch {
          // gone
        }
      }
      await Promise.all(held.map((c) => c.end().catch(() => undefined)));
      await drop();
    }
  },
);
