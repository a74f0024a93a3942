import { test } from 'node:test';
import { PostgresStore } from '../../src/store/postgres/store.js';
import { PGBOUNCER_URL, PG_URL, pgSchemaUrl } from '../helpers/pg.js';
import { needs } from '../helpers/needs.js';
import { storeContract } from './contract.js';

// Team stores behind PgBouncer in transaction mode: the same contract, unchanged. Each store call is
// one transaction and lanes keeps nothing in a server session, so pooling per transaction is safe.
if (PG_URL && PGBOUNCER_URL) {
  storeContract('postgres through PgBouncer (transaction mode)', async () => {
    const { url, drop } = pgSchemaUrl(PGBOUNCER_URL);
    return { store: await PostgresStore.open(url), cleanup: drop, url };
  });
} else {
  test(
    'Store contract through PgBouncer',
    {
      skip: needs(
        'PgBouncer',
        'LANES_TEST_PGBOUNCER_URL (and LANES_TEST_PG_URL) not set: no PgBouncer for this run (.ci/run starts one)',
      ),
    },
    () => undefined,
  );
}
