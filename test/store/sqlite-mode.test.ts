import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { tmp } from '../helpers/env.js';
import { session } from './fixtures.js';

// The store holds every session's identity, claims and state: only its owner may read it, even in
// a LANES_HOME (or --store directory) that others can enter (issue 13, item 4).

const mode = (p: string) => statSync(p).mode & 0o777;

test('a new store and its WAL and SHM files are created 0600 in a directory others can read', async () => {
  const dir = join(tmp('lanes-mode-'), 'home');
  mkdirSync(dir, { mode: 0o755 });
  chmodSync(dir, 0o755);
  const file = join(dir, 'lanes.db');
  const store = SqliteStore.open(file);
  await store.insertSession(session('s-mode000001'));
  assert.equal(existsSync(`${file}-wal`), true, 'the store is open in WAL mode');
  for (const f of [file, `${file}-wal`, `${file}-shm`]) assert.equal(mode(f).toString(8), '600', f);
  await store.close();
  assert.equal(mode(file).toString(8), '600');
});

test('an existing store created 0644 by an earlier lanes is closed to others when opened', async () => {
  const dir = tmp('lanes-mode-');
  const file = join(dir, 'lanes.db');
  const first = SqliteStore.open(file);
  await first.close();
  chmodSync(file, 0o644);
  const store = SqliteStore.open(file);
  assert.equal(mode(file).toString(8), '600');
  await store.close();
});

test('an empty file named as the store is a new store, still 0600 (umask does not widen it)', async () => {
  const dir = tmp('lanes-mode-');
  const file = join(dir, 'lanes.db');
  writeFileSync(file, '', { mode: 0o666 });
  chmodSync(file, 0o666);
  const store = SqliteStore.open(file);
  assert.equal(mode(file).toString(8), '600');
  await store.close();
});
