import { LanesError } from '../core/errors.js';
import { SqliteStore } from './sqlite.js';
import type { SqliteOptions } from './sqlite-conn.js';
import type { Store } from './types.js';

export type StoreKind = 'sqlite' | 'postgres';

export function storeKind(location: string): StoreKind {
  return /^postgres(ql)?:\/\//i.test(location) ? 'postgres' : 'sqlite';
}

/** The one place a backend is chosen. */
export function openStore(location: string, options: SqliteOptions = {}): Store {
  const kind = storeKind(location);
  switch (kind) {
    case 'sqlite':
      return SqliteStore.open(location, options);
    case 'postgres':
      throw new LanesError('E_USAGE', 'the PostgreSQL store (team mode) is not available in this version of lanes', {
        hint: 'unset LANES_STORE (or pass --store PATH) to use the embedded SQLite store',
        details: { kind },
      });
    default: {
      const never: never = kind;
      throw new LanesError('E_INTERNAL', `unknown store kind ${String(never)}`);
    }
  }
}
