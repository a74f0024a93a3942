import { PostgresStore } from '../../src/store/postgres/store.js';
import { PG_URL, announcePgSkip, pgSchemaUrl } from '../helpers/pg.js';
import { storeContract } from './contract.js';

// The same contract as SQLite, unchanged, on a real server; each test on a schema of its own.
if (PG_URL) {
  storeContract('postgres', async () => {
    const { url, drop } = pgSchemaUrl();
    return { store: await PostgresStore.open(url), cleanup: drop, url };
  });
} else {
  announcePgSkip('Store contract');
}
