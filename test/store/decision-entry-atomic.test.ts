// "No decision without its entry": every decision the store makes (a session started or ended, a
// claim granted or taken over, a release, a wait registered) is written in one transaction with
// its journal entry. Proven from outside on both stores: with the journal made to refuse every
// insert (a trigger), each decision must fail whole and leave the store exactly as it was. A store
// that wrote the decision and then, in a second transaction, its entry would keep the decision.
import { test } from 'node:test';
import { rawSqlite } from '../helpers/sqlite.js';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type * as Pg from 'pg';
import { openLanes } from '../../src/index.js';
import type { Lanes } from '../../src/index.js';
import { lanesEnv, tmp } from '../helpers/env.js';
import { PG_SKIP, PG_URL, pgSchemaUrl } from '../helpers/pg.js';

const require = createRequire(import.meta.url);

interface Blocker {
  block(): Promise<void>;
  unblock(): Promise<void>;
  close(): Promise<void>;
}

function sqliteBlocker(file: string): Blocker {
  const db = rawSqlite(file);
  return {
    block: async () => {
      db.exec(
        `CREATE TRIGGER no_journal BEFORE INSERT ON journal BEGIN SELECT RAISE(ABORT, 'journal refused by the test'); END`,
      );
    },
    unblock: async () => {
      db.exec(`DROP TRIGGER no_journal`);
    },
    close: async () => {
      db.close();
    },
  };
}

async function pgBlocker(schema: string): Promise<Blocker> {
  const pg = require('pg') as typeof Pg;
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  return {
    block: async () => {
      await c.query(
        `CREATE FUNCTION "${schema}".no_journal() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'journal refused by the test'; END $$`,
      );
      await c.query(
        `CREATE TRIGGER no_journal BEFORE INSERT ON "${schema}".journal FOR EACH ROW EXECUTE FUNCTION "${schema}".no_journal()`,
      );
    },
    unblock: async () => void (await c.query(`DROP FUNCTION "${schema}".no_journal() CASCADE`)),
    close: () => c.end(),
  };
}

/** What the store holds, the journal included: must not change when a decision fails. */
async function picture(l: Lanes) {
  const sessions = (await l.sessions.list({ all: true })).map((s) => [s.id, s.endedAt === null]);
  const claims = (await l.claims.list({ all: true })).map((c) => [
    c.claim.kind,
    c.claim.name,
    c.claim.sessionId,
    c.claim.token,
  ]);
  const waits = (await l.claims.waits()).map((w) => w.session?.id ?? null);
  const journal = (await l.journal.list({ limit: 100_000 })).map((e) => e.seq);
  return { sessions, claims, waits, journal };
}

/** A process that lives until the returned function kills it (and it has exited). */
function mortal(): { pid: number; kill: () => Promise<void> } {
  const p = spawn('sleep', ['600'], { stdio: 'ignore' });
  const exited = new Promise<void>((r) => p.once('exit', () => r()));
  return { pid: p.pid!, kill: async () => (p.kill('SIGKILL'), await exited) };
}

async function decisions(store: string, blocker: Blocker): Promise<void> {
  const l = await openLanes({ store, env: lanesEnv(), cwd: tmp(), notice: false, session: null });
  try {
    const a = (await l.sessions.start({ pid: process.pid, label: 'a' })).id;
    await l.claims.claim(['lock:held'], { session: a });
    const owner = mortal();
    const ghost = (await l.sessions.start({ pid: owner.pid, label: 'dead holder' })).id;
    await l.claims.claim(['lock:of-the-dead'], { session: ghost });
    await owner.kill();
    const before = await picture(l);
    await blocker.block();
    const attempts: [string, () => Promise<unknown>][] = [
      ['a session start', () => l.sessions.start({ pid: process.pid, label: 'b' })],
      ['a claim', () => l.claims.claim(['lock:new'], { session: a })],
      ['a takeover of a dead holder', () => l.claims.claim(['lock:of-the-dead'], { session: a })],
      ['a release', () => l.claims.release(['lock:held'], { session: a })],
      ['a wait', () => l.claims.claim(['lock:of-the-dead'], { session: a, wait: true, timeoutMs: 300 })],
      ['an end', () => l.sessions.end(a, { reason: 'test' })],
    ];
    for (const [what, attempt] of attempts) {
      await assert.rejects(
        attempt(),
        (e: Error) => /journal refused by the test|E_STORE/.test(`${e.message} ${(e as { code?: string }).code}`),
        what,
      );
      assert.deepEqual(await picture(l), before, `${what}: nothing of it stayed`);
    }
    await blocker.unblock();
    await l.claims.claim(['lock:new'], { session: a });
    const grants = (await l.journal.list({ kinds: ['claim.grant'] })).filter((e) => e.subject.includes('lock:new'));
    assert.equal(grants.length, 1, 'with the journal back, the claim and its one entry');
  } finally {
    await blocker.close();
    await l.close({ heartbeat: false });
  }
}

test('SQLite: a decision whose journal entry cannot be written is not made (claim, takeover, release, wait, start, end)', async () => {
  const file = join(tmp(), 'lanes.db');
  const boot = await openLanes({ store: file, env: lanesEnv(), cwd: tmp(), notice: false, session: null });
  await boot.close({ heartbeat: false });
  await decisions(file, sqliteBlocker(file));
});

test('PostgreSQL: a decision whose journal entry cannot be written is not made', { skip: PG_SKIP }, async () => {
  const { url, schema, drop } = pgSchemaUrl();
  try {
    const boot = await openLanes({ store: url, env: lanesEnv(), cwd: tmp(), notice: false, session: null });
    await boot.close({ heartbeat: false });
    await decisions(url, await pgBlocker(schema));
  } finally {
    await drop();
  }
});
