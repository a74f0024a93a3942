import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import type * as Pg from 'pg';
import { PgConn } from '../../src/store/postgres/conn.js';
import { PG_SKIP, PG_URL, pgSchemaUrl } from '../helpers/pg.js';

// The connection a store keeps between its calls (kept-client.ts): reused by the next call, and
// one the server ends while it is kept is dropped; the next call gets a new one and succeeds.

const backend = async (conn: PgConn) => Number((await conn.query<{ p: number }>('SELECT pg_backend_pid() AS p'))[0]?.p);

test(
  'consecutive calls reuse one connection; one the server ends while kept is dropped, not handed out',
  { skip: PG_SKIP },
  async () => {
    const { url, drop } = pgSchemaUrl();
    const conn = await PgConn.open(url, { direct: true });
    const pg = createRequire(import.meta.url)('pg') as typeof Pg;
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    try {
      const first = await backend(conn);
      assert.equal(await backend(conn), first, 'the next call runs on the connection kept');
      assert.equal((await conn.call<{ n: number }>('SELECT 1 AS n'))[0]?.n, 1);
      assert.equal(await backend(conn), first);
      // Two calls at once: the second takes one from the pool; both are answered.
      const [a, b] = await Promise.all([backend(conn), backend(conn)]);
      assert.notEqual(a, b);
      const kept = await backend(conn);
      assert.equal(await backend(conn), kept);
      await admin.query('SELECT pg_terminate_backend($1)', [kept]);
      // The server has let it go; its end reaches the client as the socket closes.
      for (let i = 0; i < 100; i++) {
        const { rows } = await admin.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [kept]);
        if (rows.length === 0) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      await new Promise((r) => setTimeout(r, 100));
      const next = await backend(conn);
      assert.notEqual(next, kept, 'the ended connection was dropped');
      assert.equal(await backend(conn), next);
    } finally {
      await admin.end();
      await conn.close();
      await drop();
    }
  },
);

test(
  'close() while a call is running ends once that call has: its connection is not kept',
  { skip: PG_SKIP },
  async () => {
    const { url, drop } = pgSchemaUrl();
    const conn = await PgConn.open(url, { direct: true });
    try {
      await backend(conn); // a connection kept
      const running = conn.query('SELECT pg_sleep(0.2)');
      await new Promise((r) => setTimeout(r, 50));
      // pool.end() waits for the running call's connection: kept again, it would never come back.
      await Promise.all([running, conn.close()]);
    } finally {
      await drop();
    }
  },
);
