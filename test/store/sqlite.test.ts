import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { storeContract } from './contract.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { tmp } from '../helpers/env.js';

storeContract('sqlite', async () => {
  const dir = tmp('lanes-store-');
  return {
    store: SqliteStore.open(join(dir, 'lanes.db')),
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
});
