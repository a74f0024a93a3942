import { after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PostgresStore } from '../../src/store/postgres/store.js';
import { CLI } from '../helpers/env.js';
import { PG_URL, announcePgSkip, pgSchemaUrl } from '../helpers/pg.js';
import { storeContract } from './contract.js';

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
