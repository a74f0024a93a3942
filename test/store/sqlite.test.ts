import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { storeContract } from './contract.js';
import { sqliteDamage } from './journal-damage.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';

storeContract('sqlite', async () => {
  // Not test/helpers' tmp(): called from a beforeEach, its after() hook removed the directory as soon
  // as the hook ended, leaving the store open on an unlinked file (a second connection then opened a
  // new one). The cleanup below removes it after each test.
  const dir = mkdtempSync(join(tmpdir(), 'lanes-store-'));
  const file = join(dir, 'lanes.db');
  return {
    store: SqliteStore.open(file),
    url: file,
    damage: sqliteDamage(file),
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
});
