import { LanesError } from '../core/errors.js';
import { SqliteStore } from './sqlite/store.js';
import type { SqliteOptions } from './sqlite/conn.js';
import type { Store } from './types.js';

export type StoreKind = 'sqlite' | 'postgres';

export interface StoreOptions extends SqliteOptions {
  /** PostgreSQL: connections in the pool. */
  poolSize?: number;
}

export function storeKind(location: string): StoreKind {
  return /^postgres(ql)?:\/\//i.test(location) ? 'postgres' : 'sqlite';
}

/** The one place a backend is chosen. The PostgreSQL module (and pg) load only for a postgres:// URL. */
export async function openStore(location: string, options: StoreOptions = {}): Promise<Store> {
  const kind = storeKind(location);
  switch (kind) {
    case 'sqlite':
      return SqliteStore.open(location, options);
    case 'postgres': {
      const { PostgresStore } = await import('./postgres/store.js');
      return PostgresStore.open(location, {
        ...(options.busyTimeoutMs !== undefined ? { busyTimeoutMs: options.busyTimeoutMs } : {}),
        ...(options.poolSize !== undefined ? { poolSize: options.poolSize } : {}),
      });
    }
    default: {
      const never: never = kind;
      throw new LanesError('E_INTERNAL', `unknown store kind ${String(never)}`);
    }
  }
}
