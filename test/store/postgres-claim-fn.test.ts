import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import type * as Pg from 'pg';
import { pathsOverlap } from '../../src/core/resource.js';
import { PgConn } from '../../src/store/postgres/conn.js';
import { PostgresStore } from '../../src/store/postgres/store.js';
import { PG_MIGRATIONS, PG_SCHEMA_VERSION } from '../../src/store/postgres/schema.js';
import { PG_SKIP, PG_URL, pgSchemaUrl } from '../helpers/pg.js';
import { judge, session } from './fixtures.js';

// The one-round-trip claim (lanes_claim, schema version 2): a store made by the previous version
// is upgraded in place at open, and the server-side conflict test agrees with core/resource.ts.

const REPO = 'repo:/r/.git';

async function client(): Promise<Pg.Client> {
  const pg = createRequire(import.meta.url)('pg') as typeof Pg;
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  return c;
}

test(
  'a version 1 store is upgraded at open (through every later migration): its claims, tokens and sessions carry over',
  { skip: PG_SKIP },
  async () => {
    const { url, schema, drop } = pgSchemaUrl();
    const c = await client();
    try {
      // The store as the previous lanes left it: version 1, a session holding a claim with token 3.
      const s = `"${schema}"`;
      await c.query((PG_MIGRATIONS[0] as (s: string) => string)(s));
      await c.query(`INSERT INTO ${s}.meta (key, value) VALUES ('schema_version', '1')`);
      await c.query(
        `INSERT INTO ${s}.sessions (id, cwd, host, boot_id, pid, start_time, created_at, last_seen_at) VALUES ('old', '/r', 'h', 'b', 100, '1', 1, 1), ('new', '/r', 'h', 'b', 101, '1', 1, 1)`,
      );
      await c.query(`INSERT INTO ${s}.fences VALUES ('${REPO}', 'ticket', 'T', 3)`);
      await c.query(`INSERT INTO ${s}.claims VALUES ('${REPO}', 'ticket', 'T', 'old', 3, 1)`);
      const store = await PostgresStore.open(url);
      try {
        assert.equal(store.info.schemaVersion, PG_SCHEMA_VERSION);
        assert.equal(PG_SCHEMA_VERSION, 12);
        const ref = { scope: REPO, kind: 'ticket', name: 'T' };
        const blocked = await store.acquireClaims('new', [ref], judge);
        assert.equal(blocked.ok, false, 'the claim made before the upgrade still blocks');
        assert.deepEqual(await store.releaseClaims('old', [ref]), {
          released: [{ ...ref, sessionId: 'old', token: 3, acquiredAt: 1 }],
          notHeld: [],
        });
        const granted = await store.acquireClaims('new', [ref], judge);
        assert.ok(granted.ok);
        assert.equal(granted.grants[0]?.token, 4, 'the fencing counter goes on from where version 1 left it');
        const version = await c.query(`SELECT value FROM ${s}.meta WHERE key = 'schema_version'`);
        assert.equal(version.rows[0].value, String(PG_SCHEMA_VERSION));
      } finally {
        await store.close();
      }
    } finally {
      await c.end();
      await drop();
    }
  },
);

test(
  'a version 7 store is upgraded to the claim functions of version 10: its claims carry over, one lanes_claim remains',
  { skip: PG_SKIP },
  async () => {
    const { url, schema, drop } = pgSchemaUrl();
    const c = await client();
    try {
      const s = `"${schema}"`;
      for (const m of PG_MIGRATIONS.slice(0, 7)) await c.query(m(s));
      await c.query(`INSERT INTO ${s}.meta (key, value) VALUES ('schema_version', '7')`);
      await c.query(
        `INSERT INTO ${s}.sessions (id, cwd, host, boot_id, pid, start_time, created_at, last_seen_at) VALUES ('old', '/r', 'h', 'b', 100, '1', 1, 1), ('new', '/r', 'h', 'b', 101, '1', 1, 1)`,
      );
      // Granted by version 7's lanes_claim: a directory claim, which version 10 finds by its range.
      const dir = { scope: REPO, kind: 'path', name: 'src/billing/' };
      const granted7 = await c.query(
        `SELECT ${s}.lanes_claim('old', ARRAY[$1], ARRAY['path'], ARRAY[$2], ARRAY['k'], '5000', 'h') AS r`,
        [REPO, dir.name],
      );
      assert.equal(granted7.rows[0].r.status, 'granted');
      const store = await PostgresStore.open(url);
      try {
        assert.equal(store.info.schemaVersion, PG_SCHEMA_VERSION);
        const inside = { scope: REPO, kind: 'path', name: 'src/billing/invoice.ts' };
        const blocked = await store.acquireClaims('new', [inside], judge);
        assert.equal(blocked.ok, false, 'the directory claimed before the upgrade still blocks a file inside it');
        assert.deepEqual(
          (await store.releaseClaims('old', [dir])).released.map((r) => r.token),
          [1],
        );
        const granted = await store.acquireClaims('new', [dir], judge);
        assert.ok(granted.ok);
        assert.equal(granted.grants[0]?.token, 2, 'the fencing counter goes on from where version 7 left it');
        const fns = await c.query(
          `SELECT pronargs FROM pg_proc WHERE proname = 'lanes_claim' AND pronamespace = $1::regnamespace`,
          [schema],
        );
        assert.deepEqual(
          fns.rows.map((r) => r.pronargs),
          [12],
          'the claim function of version 7 is gone: one conflict rule',
        );
      } finally {
        await store.close();
      }
    } finally {
      await c.end();
      await drop();
    }
  },
);

test('the server-side conflict test of path claims agrees with pathsOverlap', { skip: PG_SKIP }, async () => {
  const { url, drop } = pgSchemaUrl();
  const store = await PostgresStore.open(url);
  try {
    const paths = ['a', 'a/', 'a/b', 'a/b/', 'a/b/c.ts', 'ab', 'ab/', 'a.b', 'b/a/', 'a%/', 'a_/x', 'A/b'];
    await store.insertSession({ ...session('x'), ticket: null });
    await store.insertSession({ ...session('y', 101), ticket: null });
    for (const held of paths) {
      const h = { scope: REPO, kind: 'path', name: held };
      assert.ok((await store.acquireClaims('x', [h], judge)).ok);
      for (const wanted of paths) {
        const w = { scope: REPO, kind: 'path', name: wanted };
        const r = await store.acquireClaims('y', [w], judge);
        assert.equal(!r.ok, pathsOverlap(held, wanted), `${wanted} wanted while ${held} is held`);
        if (r.ok) await store.releaseClaims('y', [w]);
      }
      await store.releaseClaims('x', [h]);
    }
  } finally {
    await store.close();
    await drop();
  }
});

test(
  'a named statement the server connection no longer has (as behind PgBouncer in transaction mode) runs again unnamed',
  { skip: PG_SKIP },
  async () => {
    const { url, drop } = pgSchemaUrl();
    // One connection, so the second call reuses the client that believes the statement is prepared.
    const conn = await PgConn.open(url, { poolSize: 1 });
    try {
      assert.deepEqual(await conn.call(`SELECT 1 AS one`), [{ one: 1 }]);
      // What a transaction-mode pooler does: the next transaction lands on a server connection
      // that never saw the name.
      await conn.query('DEALLOCATE ALL');
      assert.deepEqual(await conn.call(`SELECT 1 AS one`), [{ one: 1 }]);
      assert.deepEqual(await conn.call(`SELECT 2 AS two`), [{ two: 2 }], 'and later statements run unnamed');
    } finally {
      await conn.close();
      await drop();
    }
  },
);

test(
  'a refused lanes_claim writes nothing: no transaction id, so no disk flush at its commit',
  { skip: PG_SKIP },
  async () => {
    const { url, schema, drop } = pgSchemaUrl();
    const store = await PostgresStore.open(url);
    const c = await client();
    try {
      await store.insertSession({ ...session('x'), ticket: null });
      await store.insertSession({ ...session('y', 101), ticket: null });
      const ref = { scope: 'host:h', kind: 'lock', name: 'L' };
      assert.ok((await store.acquireClaims('x', [ref], judge)).ok);
      const s = `"${schema}"`;
      const claim = (who: string) =>
        c.query(
          `SELECT ${s}.lanes_claim($1, ARRAY['host:h'], ARRAY['lock'], ARRAY['L'], ARRAY['k'], '5000', 'h', NULL, NULL, NULL, NULL, NULL) AS r`,
          [who],
        );
      const xid = async () => (await c.query('SELECT pg_current_xact_id_if_assigned() AS x')).rows[0].x;
      await c.query('BEGIN');
      assert.equal((await claim('y')).rows[0].r.status, 'conflict');
      assert.equal(await xid(), null, 'the refusal locked or wrote nothing');
      await c.query('ROLLBACK');
      await store.releaseClaims('x', [ref]);
      await c.query('BEGIN');
      assert.equal((await claim('y')).rows[0].r.status, 'granted');
      assert.notEqual(await xid(), null, 'a grant writes');
      await c.query('ROLLBACK');
    } finally {
      await c.end();
      await store.close();
      await drop();
    }
  },
);

test(
  'a version 11 store gets the index of the recorded dead by worktree (12): its dead are counted and chosen',
  { skip: PG_SKIP },
  async () => {
    const { url, schema, drop } = pgSchemaUrl();
    const c = await client();
    try {
      const s = `"${schema}"`;
      for (const m of PG_MIGRATIONS.slice(0, 11)) await c.query(m(s));
      await c.query(`INSERT INTO ${s}.meta (key, value) VALUES ('schema_version', '11')`);
      // Recorded dead as version 11 recorded them (dead_seen_at = last_seen_at); 'c' holds a claim.
      await c.query(
        `INSERT INTO ${s}.sessions (id, cwd, worktree, host, boot_id, pid, start_time, created_at, last_seen_at, dead_seen_at, dead_why)
         VALUES ('a', '/w', '/w', 'h', 'b', 100, '1', 1, 5, 5, 'gone'), ('b', '/v', '/v', 'h', 'b', 101, '1', 2, 5, 5, 'gone'),
           ('c', '/v', '/v', 'h', 'b', 102, '1', 3, 5, 5, 'gone'), ('d', '/w', '/w', 'h', 'b', 103, '1', 4, 5, NULL, NULL)`,
      );
      await c.query(`INSERT INTO ${s}.claims VALUES ('${REPO}', 'path', 'x.ts', 'c', 1, 1)`);
      const store = await PostgresStore.open(url);
      try {
        assert.equal(store.info.schemaVersion, PG_SCHEMA_VERSION);
        const index = await c.query(
          `SELECT 1 FROM pg_indexes WHERE schemaname = $1 AND indexname = 'sessions_dead_by_worktree'`,
          [schema],
        );
        assert.equal(index.rows.length, 1);
        assert.deepEqual(await store.deadWorktrees('h'), ['/v', '/w']);
        const got = await store.deadAttention({ host: 'h', worktrees: ['/w'], limit: 50, exclude: [] });
        assert.deepEqual([got.dead, got.attention, got.first.map((x) => x.id)], [3, 2, ['a', 'c']]);
      } finally {
        await store.close();
      }
    } finally {
      await c.end();
      await drop();
    }
  },
);
