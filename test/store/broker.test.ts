import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PostgresStore } from '../../src/store/postgres/store.js';
import { CLI } from '../helpers/env.js';
import { PG_URL, announcePgSkip, pgSchemaUrl } from '../helpers/pg.js';
import { storeContract } from './contract.js';
import { session } from './fixtures.js';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

// Team stores through this host's broker (src/store/postgres/broker/): the same contract, unchanged.
// The broker pools per transaction as PgBouncer does, over a socket in a private runtime directory;
// the store in this process (and the processes it starts) reach it through the built CLI.
if (PG_URL) {
  const runtime = mkdtempSync(join(tmpdir(), 'lanes-broker-run-'));
  process.env['XDG_RUNTIME_DIR'] = runtime;
  process.env['LANES_BROKER_CLI'] = CLI;
  delete process.env['LANES_BROKER'];
  storeContract('postgres through the host broker', async () => {
    const { url, drop } = pgSchemaUrl();
    const store = await PostgresStore.open(url);
    assert.equal(store.info.connection, 'broker', 'the store went through the broker');
    return { store, cleanup: drop, url };
  });
  test('a long-lived store whose broker goes (killed, or gone idle) reaches a new one on its next call', async () => {
    const { url, drop } = pgSchemaUrl();
    const store = await PostgresStore.open(url);
    try {
      assert.equal(store.info.connection, 'broker');
      await store.insertSession(session('long-lived'));
      const pidOf = () =>
        readdirSync(join(runtime, 'lanes', 'broker')).map(
          (k) =>
            (JSON.parse(readFileSync(join(runtime, 'lanes', 'broker', k, 'broker.json'), 'utf8')) as { pid: number })
              .pid,
        )[0] as number;
      const first = pidOf();
      process.kill(first, 'SIGKILL');
      for (let i = 0; i < 200 && alive(first); i++) await new Promise((r) => setTimeout(r, 10));
      assert.equal(alive(first), false);
      // The pool's connections to the dead broker are gone with it; the next call finds a new broker.
      assert.equal((await store.getSession('long-lived'))?.id, 'long-lived');
      assert.notEqual(pidOf(), first, 'a new broker serves it');
    } finally {
      await store.close();
      await drop();
    }
  });
  test('a long-lived store that went straight to the server (its broker late) goes through the broker once it answers', async () => {
    const { url, drop } = pgSchemaUrl();
    // A runtime of its own (no broker answers there yet) and a millisecond of patience: the store
    // starts a broker but goes straight to the server, as on a host too loaded to start one in time.
    const own = mkdtempSync(join(tmpdir(), 'lanes-broker-late-'));
    const saved = { run: process.env['XDG_RUNTIME_DIR'], patience: process.env['LANES_BROKER_START_MS'] };
    process.env['XDG_RUNTIME_DIR'] = own;
    process.env['LANES_BROKER_START_MS'] = '1';
    let store: PostgresStore | undefined;
    const status = () => {
      try {
        const [key] = readdirSync(join(own, 'lanes', 'broker'));
        return JSON.parse(readFileSync(join(own, 'lanes', 'broker', key as string, 'broker.json'), 'utf8')) as {
          pid: number;
          clients: number;
        };
      } catch {
        return null;
      }
    };
    try {
      store = await PostgresStore.open(url);
      assert.equal(store.info.connection, 'direct', 'the broker did not answer in time');
      await store.insertSession(session('late'));
      for (let i = 0; i < 500 && !status(); i++) await new Promise((r) => setTimeout(r, 10));
      assert.ok(status(), 'the broker it started came up');
      assert.equal(status()?.clients, 0, 'nobody uses it yet');
      // The store looks for it again at most every 5 s (a hook's short life never does).
      await new Promise((r) => setTimeout(r, 5200));
      assert.equal((await store.getSession('late'))?.id, 'late');
      let clients = 0;
      for (let i = 0; i < 300 && clients === 0; i++) {
        await new Promise((r) => setTimeout(r, 10));
        clients = status()?.clients ?? 0;
      }
      assert.equal(clients, 1, 'the store is now a client of the broker');
    } finally {
      process.env['XDG_RUNTIME_DIR'] = saved.run;
      if (saved.patience === undefined) delete process.env['LANES_BROKER_START_MS'];
      else process.env['LANES_BROKER_START_MS'] = saved.patience;
      await store?.close();
      const pid = status()?.pid;
      if (pid) process.kill(pid, 'SIGTERM');
      await drop();
      rmSync(own, { recursive: true, force: true });
    }
  });
  after(() => {
    // The broker would leave by itself after a minute without clients; the test stops it now.
    for (const key of readdirSync(join(runtime, 'lanes', 'broker'))) {
      try {
        const { pid } = JSON.parse(readFileSync(join(runtime, 'lanes', 'broker', key, 'broker.json'), 'utf8')) as {
          pid: number;
        };
        process.kill(pid, 'SIGTERM');
      } catch {
        // gone already
      }
    }
    rmSync(runtime, { recursive: true, force: true });
  });
} else {
  announcePgSkip('Store contract through the host broker');
}
