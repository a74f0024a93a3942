import type { Store } from '../../src/store/types.js';
import type { DamageRow } from './journal-damage.js';

/**
 * A fresh store, and `url`: how another process opens it (the concurrent writers are processes:
 * SQLite never interleaves the connections of one).
 */
export type MakeStore = () => Promise<{
  store: Store;
  cleanup: () => Promise<void>;
  url: string;
  /** Damages one journal row behind the store's back (journal-damage.ts). */
  damage?: DamageRow;
}>;
