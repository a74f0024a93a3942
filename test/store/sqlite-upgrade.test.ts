import { test } from 'node:test';
import { rawSqlite } from '../helpers/sqlite.js';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { MIGRATIONS, SCHEMA_VERSION } from '../../src/store/sqlite/schema.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { tmp } from '../helpers/env.js';
import { judge } from './fixtures.js';

const REPO = 'repo:/r';

/** A store as lanes with schema 3 left it: a claim with token 3 and journal entries numbered 1..5. */
function version3Store(file: string, keep: number): void {
  const db = rawSqlite(file);
  db.pragma('journal_mode = WAL');
  for (const m of MIGRATIONS.slice(0, 3)) db.exec(m);
  db.exec(`INSERT INTO meta (key, value) VALUES ('schema_version', '3')`);
  db.exec(`INSERT INTO sessions (id, cwd, host, boot_id, pid, start_time, created_at, last_seen_at)
    VALUES ('old', '/r', 'h', 'b', 100, '1', 1, 1), ('new', '/r', 'h', 'b', 101, '1', 1, 1)`);
  db.exec(`INSERT INTO fences VALUES ('${REPO}', 'ticket', 'T', 3)`);
  db.exec(`INSERT INTO claims VALUES ('${REPO}', 'ticket', 'T', 'old', 3, 1)`);
  const add = db.prepare(`INSERT INTO journal (at, host, kind, subject, details) VALUES (?, 'h', 'commit', ?, '{}')`);
  for (let i = 1; i <= 5; i++) add.run(i, `c${i}`);
  // What pruning left: the newest `keep` entries (AUTOINCREMENT remembers 5 in sqlite_sequence).
  db.prepare(`DELETE FROM journal WHERE seq <= ?`).run(5 - keep);
  db.close();
}

for (const keep of [2, 0])
  test(`a version 3 store is upgraded at open: claims, tokens and journal numbers carry over (${keep} entries left)`, async () => {
    assert.equal(SCHEMA_VERSION, 10);
    const file = join(tmp(), 'lanes.db');
    version3Store(file, keep);
    const store = SqliteStore.open(file);
    try {
      assert.equal(store.info.schemaVersion, SCHEMA_VERSION);
      const ref = { scope: REPO, kind: 'ticket', name: 'T' };
      assert.equal((await store.acquireClaims('new', [ref], judge)).ok, false, 'the old claim still blocks');
      await store.releaseClaims('old', [ref]);
      const granted = await store.acquireClaims('new', [ref], judge);
      assert.ok(granted.ok);
      assert.equal(granted.grants[0]?.token, 4, 'the fencing counter goes on');
      const seqs = (await store.readJournal({})).map((e) => [e.seq, e.kind, e.subject]);
      const kept = [3, 4, 5].slice(3 - keep).map((n) => [n, 'commit', `c${n}`]);
      assert.deepEqual(seqs, [...kept, [6, 'claim.release', 'ticket:T'], [7, 'claim.grant', 'ticket:T']]);
    } finally {
      await store.close();
    }
    const db = rawSqlite(file);
    try {
      const sql = (name: string) =>
        (db.prepare(`SELECT sql FROM sqlite_master WHERE name = ?`).get(name) as { sql: string } | undefined)?.sql;
      assert.match(sql('claims') ?? '', /WITHOUT ROWID/);
      assert.match(sql('fences') ?? '', /WITHOUT ROWID/);
      assert.doesNotMatch(sql('journal') ?? '', /AUTOINCREMENT/);
      assert.equal(sql('claims_by_scope_kind'), undefined);
      assert.equal(sql('journal_by_at'), undefined);
      assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
    } finally {
      db.close();
    }
  });

test('a version 9 store gets the index of the recorded dead by worktree: its dead are counted and chosen', async () => {
  const file = join(tmp(), 'lanes.db');
  const db = rawSqlite(file);
  db.pragma('journal_mode = WAL');
  for (const m of MIGRATIONS.slice(0, 9)) db.exec(m);
  db.exec(`INSERT INTO meta (key, value) VALUES ('schema_version', '9')`);
  // Recorded dead as version 9 recorded them (dead_seen_at = last_seen_at); 'c' holds a claim.
  db.exec(`INSERT INTO sessions (id, cwd, worktree, host, boot_id, pid, start_time, created_at, last_seen_at, dead_seen_at, dead_why)
    VALUES ('a', '/w', '/w', 'h', 'b', 100, '1', 1, 5, 5, 'gone'), ('b', '/v', '/v', 'h', 'b', 101, '1', 2, 5, 5, 'gone'),
      ('c', '/v', '/v', 'h', 'b', 102, '1', 3, 5, 5, 'gone'), ('d', '/w', '/w', 'h', 'b', 103, '1', 4, 5, NULL, NULL)`);
  db.exec(`INSERT INTO claims VALUES ('${REPO}', 'path', 'x.ts', 'c', 1, 1)`);
  db.close();
  const store = SqliteStore.open(file);
  try {
    assert.equal(store.info.schemaVersion, SCHEMA_VERSION);
    assert.deepEqual(await store.deadWorktrees('h'), ['/v', '/w']);
    const got = await store.deadAttention({ host: 'h', worktrees: ['/w'], limit: 50, exclude: [] });
    assert.deepEqual([got.dead, got.attention, got.first.map((x) => x.id)], [3, 2, ['a', 'c']]);
  } finally {
    await store.close();
  }
});
