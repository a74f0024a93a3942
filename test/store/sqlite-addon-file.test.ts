import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, gitRepo, lanes, lanesEnv, tmp } from '../helpers/env.js';
import { DatabaseSync } from 'node:sqlite';

// Issue 47, item 1: lanes runs its store on node:sqlite only. A store written by the better-sqlite3
// addon (lanes on Node 20, before) opens unchanged: test/fixtures/store-better-sqlite3.db was made
// by lanes 0.1.0 with LANES_SQLITE_DRIVER=better-sqlite3 on Node 20.20.2 (better-sqlite3 12.11.1):
// session SHOP-1 (alice) started, claimed, ended; session SHOP-2 (bob) open, holding
// path:src/cart/ (and its ticket), its state {"phase": "one"}.

const FIXTURE = join(ROOT, 'test', 'fixtures', 'store-better-sqlite3.db');

test('a store the better-sqlite3 addon wrote opens on node:sqlite unchanged: sessions, claims, state, journal', async () => {
  const dir = tmp('lanes-addon-store-');
  const store = join(dir, 'lanes.db');
  copyFileSync(FIXTURE, store);
  const repo = gitRepo();
  const env = { ...lanesEnv(), LANES_STORE: store };
  const opts = { env, cwd: repo };

  const status = await lanes(['store', 'status', '--json'], opts);
  assert.equal(status.code, 0, status.stderr);
  assert.equal((JSON.parse(status.stdout) as { driver: string }).driver, 'node:sqlite');

  const ls = await lanes(['ls', '--all', '--json'], opts);
  assert.equal(ls.code, 0, ls.stderr);
  type Row = { id: string; ticket: string; label: string; state: string; claims: { kind: string; name: string }[] };
  const rows = JSON.parse(ls.stdout) as Row[];
  const alice = rows.find((r) => r.ticket === 'SHOP-1');
  const bob = rows.find((r) => r.ticket === 'SHOP-2');
  assert.equal(alice?.state, 'ended');
  assert.equal(alice?.label, 'alice');
  assert.ok(bob && bob.state !== 'ended', `SHOP-2 still open: ${ls.stdout}`);
  assert.deepEqual(bob.claims.map((c) => `${c.kind}:${c.name}`).sort(), ['path:src/cart/', 'ticket:SHOP-2']);

  const state = await lanes(['state', 'get', 'phase', '--session', bob.id, '--json'], opts);
  assert.equal(state.code, 0, state.stderr);
  assert.equal(JSON.parse(state.stdout), 'one');

  const log = await lanes(['log', '--json'], opts);
  assert.equal(log.code, 0, log.stderr);
  const kinds = log.stdout
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l) as { kind: string }).kind);
  assert.deepEqual(kinds.slice(0, 5), ['session.start', 'claim.grant', 'claim.grant', 'claim.grant', 'session.end']);

  // And it is written on: a new session and its claim, the file still whole.
  const started = await lanes(['start', '--ticket', 'SHOP-3', '--pid', String(process.pid), '--json'], opts);
  assert.equal(started.code, 0, started.stderr);
  const raw = new DatabaseSync(store);
  try {
    assert.equal((raw.prepare('PRAGMA integrity_check').get() as { integrity_check: string }).integrity_check, 'ok');
    assert.equal((raw.prepare('SELECT count(*) AS n FROM sessions').get() as { n: number }).n, 3);
  } finally {
    raw.close();
  }
  // The fixture itself is untouched (the test works on a copy).
  assert.equal(readFileSync(FIXTURE).subarray(0, 16).toString('latin1'), 'SQLite format 3\0');
});
