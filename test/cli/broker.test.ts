import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type * as Pg from 'pg';
import { gitRepo, lanes, lanesEnv, node, tmp } from '../helpers/env.js';
import { PG_SKIP, PG_URL, pgSchemaUrl } from '../helpers/pg.js';

// The host broker of a team store (src/store/postgres/broker/), as users get it: started by the
// first lanes call that needs it, shared by every lanes process of the user on the host.

const pg = createRequire(import.meta.url)('pg') as typeof Pg;

interface Broker {
  dir: string;
  socket: string;
  pid: number;
  identity: string;
}

/** The one broker under this host's runtime directory. */
function theBroker(runtime: string): Broker {
  const root = join(runtime, 'lanes', 'broker');
  const keys = readdirSync(root);
  assert.equal(keys.length, 1, `one broker for the store: ${keys.join(', ')}`);
  const dir = join(root, keys[0] as string);
  const s = JSON.parse(readFileSync(join(dir, 'broker.json'), 'utf8')) as { pid: number; identity: string };
  return { dir, socket: join(dir, '.s.PGSQL.5432'), pid: s.pid, identity: s.identity };
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Waits for a condition (bounded), checking it every 20 ms: a state to reach, not a time to sleep. */
async function until(what: string, ok: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test(
  "one host's processes share its broker: 8 claimers x 25 claims, tokens exactly 1..200, no lost update, never more than 2 server connections",
  { skip: PG_SKIP, timeout: 300_000 },
  async () => {
    const { url, drop } = pgSchemaUrl();
    const runtime = tmp('lanes-run-');
    const env = { ...lanesEnv(), LANES_STORE: url, XDG_RUNTIME_DIR: runtime };
    const watch = new pg.Client({ connectionString: PG_URL });
    await watch.connect();
    try {
      const repo = gitRepo();
      const theStart = Date.now();
      assert.equal((await lanes(['ls'], { env, cwd: repo })).code, 0, 'the first call starts the broker');
      const broker = theBroker(runtime);
      const name = `lanes broker ${broker.identity.slice(-8)} %`; // and its host and process
      let most = 0;
      let sampling = true;
      // Brokers of this build on this server share the name (another test's, still idling): counted
      // are the backends of this one, those born after it started.
      const before = (
        await watch.query<{ pid: number }>(
          'SELECT pid FROM pg_stat_activity WHERE application_name LIKE $1 AND backend_start < $2',
          [name, new Date(theStart)],
        )
      ).rows.map((r) => r.pid);
      const sampler = (async () => {
        while (sampling) {
          const r = await watch.query<{ n: string }>(
            'SELECT count(*) AS n FROM pg_stat_activity WHERE application_name LIKE $1 AND pid <> ALL($2::int[])',
            [name, before],
          );
          most = Math.max(most, Number(r.rows[0]?.n ?? 0));
          await new Promise((r2) => setTimeout(r2, 10));
        }
      })();
      const counter = join(tmp(), 'counter');
      writeFileSync(counter, '0');
      const N = 8;
      const ROUNDS = 25;
      const kids = Array.from({ length: N }, () =>
        node('claimer.mjs', [counter, String(ROUNDS), 'ticket:SHARED'], { env, cwd: repo }),
      );
      await Promise.all(kids.map((k) => k.waitFor(/ready/)));
      for (const k of kids) k.send('go');
      const tokens = await Promise.all(
        kids.map(async (k) => {
          const exit = await k.exited;
          assert.equal(exit.code, 0, k.stderr);
          return (k.stdout.match(/tokens ([\d,]+)/)?.[1] ?? '').split(',').map(Number);
        }),
      );
      sampling = false;
      await sampler;
      assert.deepEqual(
        tokens.flat().sort((a, b) => a - b),
        Array.from({ length: N * ROUNDS }, (_, i) => i + 1),
      );
      assert.equal(Number(readFileSync(counter, 'utf8')), N * ROUNDS);
      assert.equal(theBroker(runtime).pid, broker.pid, 'the same broker served them all');
      assert.ok(most >= 1 && most <= 2, `the server saw ${most} connections of the broker`);
      const status = JSON.parse((await lanes(['store', 'status', '--json'], { env, cwd: repo })).stdout) as {
        connection: string;
        broker: { pid: number; pool: { refused: number } };
      };
      assert.equal(status.connection, 'broker');
      assert.equal(status.broker.pid, broker.pid);
      process.kill(broker.pid, 'SIGTERM');
      await until('the broker stopped', () => !alive(broker.pid));
    } finally {
      await watch.end();
      await drop();
    }
  },
);

test(
  'a client of another lanes build is refused; a killed broker is replaced by the next call; an idle one leaves, taking its socket',
  { skip: PG_SKIP, timeout: 120_000 },
  async () => {
    const { url, drop } = pgSchemaUrl();
    const runtime = tmp('lanes-run-');
    const env = { ...lanesEnv(), LANES_STORE: url, XDG_RUNTIME_DIR: runtime };
    try {
      assert.equal((await lanes(['ls'], { env })).code, 0);
      const first = theBroker(runtime);
      // What pg would send for another build's broker: refused at log-in, named as such.
      const stranger = new pg.Client({
        host: first.dir,
        port: 5432,
        user: 'x',
        database: 'x',
        application_name: 'lanes-broker-0123456789abcdef',
      });
      await assert.rejects(stranger.connect(), (e: Error & { code?: string }) => {
        assert.equal(e.code, '08P01');
        assert.match(e.message, /another lanes build/);
        return true;
      });
      // Killed outright (its socket file stays): the next call finds nobody answering, starts another.
      process.kill(first.pid, 'SIGKILL');
      await until('the broker died', () => !alive(first.pid));
      assert.ok(existsSync(first.socket), 'a dead broker leaves its socket file');
      const again = await lanes(['store', 'status', '--json'], { env: { ...env, LANES_BROKER_IDLE_MS: '300' } });
      assert.equal(again.code, 0, again.stderr);
      assert.equal((JSON.parse(again.stdout) as { connection: string }).connection, 'broker');
      const second = theBroker(runtime);
      assert.notEqual(second.pid, first.pid);
      // Started with a short idle time: with no client left it exits, and its socket goes with it.
      await until('the idle broker left', () => !alive(second.pid));
      assert.ok(!existsSync(second.socket), 'its socket is removed');
      assert.ok(!existsSync(join(second.dir, 'broker.json')), 'and its status');
      // LANES_BROKER=0: straight to the server, and no broker is started.
      const direct = await lanes(['store', 'status', '--json'], { env: { ...env, LANES_BROKER: '0' } });
      assert.equal((JSON.parse(direct.stdout) as { connection: string }).connection, 'direct');
      assert.ok(!existsSync(second.socket));
    } finally {
      await drop();
    }
  },
);

test(
  'a client gone in the middle of a transaction: its server connection is closed, never lent to the next client',
  { skip: PG_SKIP, timeout: 60_000 },
  async () => {
    const { url, drop } = pgSchemaUrl();
    const runtime = tmp('lanes-run-');
    const env = { ...lanesEnv(), LANES_STORE: url, XDG_RUNTIME_DIR: runtime, LANES_BROKER_POOL: '1' };
    try {
      assert.equal((await lanes(['ls'], { env })).code, 0);
      const b = theBroker(runtime);
      const client = () =>
        new pg.Client({ host: b.dir, port: 5432, user: 'x', database: 'x', application_name: b.identity });
      const a = client();
      a.on('error', () => undefined); // its own end, below
      await a.connect();
      await a.query('BEGIN');
      // A setting that lives only in a's transaction: seen by the next client if it got a's connection.
      await a.query(`SELECT set_config('application_name', 'left-in-a-transaction', true)`);
      const aBackend = (await a.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid;
      // Gone without a word (a killed process): the broker sees its socket close mid-transaction.
      (a as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
      const c = client();
      await c.connect();
      const r = await c.query<{ name: string; pid: number; tx: string | null }>(
        "SELECT current_setting('application_name') AS name, pg_backend_pid() AS pid, pg_current_xact_id_if_assigned()::text AS tx",
      );
      assert.notEqual(r.rows[0]?.name, 'left-in-a-transaction');
      assert.notEqual(r.rows[0]?.pid, aBackend, 'the pool of one opened a new server connection');
      await c.end();
      process.kill(b.pid, 'SIGTERM');
      await until('the broker stopped', () => !alive(b.pid));
    } finally {
      await drop();
    }
  },
);
