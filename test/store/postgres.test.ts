import { PostgresStore } from '../../src/store/postgres/store.js';
import { PG_URL, announcePgSkip, pgSchemaUrl } from '../helpers/pg.js';
import { storeContract } from './contract.js';
import { pgDamage } from './journal-damage.js';

// The same contract as SQLite, unchanged, on a real server; each test on a schema of its own.
if (PG_URL) {
  storeContract('postgres', async () => {
    const { url, drop, schema } = pgSchemaUrl();
    return { store: await PostgresStore.open(url), cleanup: drop, url, damage: pgDamage(schema) };
  });
} else {
  announcePgSkip('Store contract');
}
