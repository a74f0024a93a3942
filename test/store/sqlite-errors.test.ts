import { test } from 'node:test';
import { rawSqlite } from '../helpers/sqlite.js';
import { NEEDS_ROOT, fillDisk, smallTmpfs } from '../helpers/tmpfs.js';
import { skipOrFail } from '../helpers/needs.js';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { lanes, lanesEnv, node, tmp } from '../helpers/env.js';

function assertClean(r: { stderr: string }, file: string) {
  assert.ok(r.stderr.includes(file), `names the file: ${r.stderr}`);
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  assert.match(r.stderr, /fix:/);
}

test('a corrupt store: a clear error naming the file, exit 1, file untouched', async () => {
  const home = tmp();
  const file = join(home, 'lanes.db');
  writeFileSync(file, 'this is not a database '.repeat(200));
  const before = readFileSync(file);
  const r = await lanes(['ls'], { env: lanesEnv(home) });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /corrupt or not a lanes store/);
  assertClean(r, file);
  assert.ok(readFileSync(file).equals(before));
});

test('a store of a newer schema version is refused and left unchanged', async () => {
  const home = tmp();
  const file = join(home, 'lanes.db');
  SqliteStore.open(file).close();
  const db = rawSqlite(file);
  db.prepare(`UPDATE meta SET value = '99' WHERE key = 'schema_version'`).run();
  db.close();
  const r = await lanes(['ls'], { env: lanesEnv(home) });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /schema version 99, newer than this lanes understands/);
  assertClean(r, file);
  const check = rawSqlite(file);
  assert.equal(
    (check.prepare(`SELECT value FROM meta WHERE key='schema_version'`).get() as { value: string }).value,
    '99',
  );
  check.close();
});

test('a store locked past the bound: E_STORE_LOCKED naming the file, nothing half-applied', async () => {
  const home = tmp();
  const file = join(home, 'lanes.db');
  const first = SqliteStore.open(file);
  await first.insertSession({
    id: 'a',
    label: null,
    agent: null,
    ticket: null,
    repo: null,
    worktree: null,
    cwd: '/',
    owner: { host: 'h', bootId: 'b', pid: 1, startTime: '1' },
    command: null,
  });
  await first.close();
  const locker = node('sqlite-locker.mjs', [file]);
  await locker.waitFor(/locked/);
  const store = SqliteStore.open(file, { busyTimeoutMs: 200 });
  await assert.rejects(
    store.endSession('a', 'x'),
    (e: Error & { code?: string }) => e.code === 'E_STORE_LOCKED' && e.message.includes(file),
  );
  locker.send('release');
  await locker.exited;
  assert.equal((await store.getSession('a'))?.endedAt, null, 'the failed end changed nothing');
  await store.close();
});

test('a full disk: E_STORE_FULL naming the file, the store still consistent', async (t) => {
  const mnt = smallTmpfs('512k');
  if (!mnt) return skipOrFail(t, 'root and mount', NEEDS_ROOT);
  const file = join(mnt, 'lanes.db');
  const store = SqliteStore.open(file);
  await store.insertSession({
    id: 'a',
    label: null,
    agent: null,
    ticket: null,
    repo: null,
    worktree: null,
    cwd: '/',
    owner: { host: 'h', bootId: 'b', pid: 1, startTime: '1' },
    command: null,
  });
  // Fill the filesystem with another file (only ENOSPC is expected), then ask the store to grow.
  fillDisk(mnt);
  let failure: (Error & { code?: string }) | undefined;
  for (let i = 0; i < 200 && !failure; i++) {
    try {
      await store.insertSession({
        id: `big-${i}`,
        label: 'x'.repeat(190),
        agent: null,
        ticket: null,
        repo: null,
        worktree: null,
        cwd: '/'.repeat(4000),
        owner: { host: 'h', bootId: 'b', pid: 1, startTime: '1' },
        command: 'y'.repeat(8000),
      });
    } catch (e) {
      failure = e as Error & { code?: string };
    }
  }
  assert.ok(failure, 'the disk filled up');
  assert.equal(failure.code, 'E_STORE_FULL', failure.message);
  assert.ok(failure.message.includes(file));
  assert.equal((await store.getSession('a'))?.id, 'a', 'earlier data intact');
  await store.close();
});
