import { existsSync, statSync } from 'node:fs';
import { LanesError } from '../../core/errors.js';
import { openStore, storeKind } from '../../store/open.js';
import type { Store, StoreInfo } from '../../store/types.js';
import { brokerStatus } from '../../store/postgres/broker/run.js';
import type { BrokerStatus } from '../../store/postgres/broker/run.js';
import { pgTarget } from '../../store/postgres/url.js';

export interface StoreStatus extends StoreInfo {
  /** PostgreSQL: this host's broker for the store, when one runs (its clients and server connections). */
  broker?: BrokerStatus | null;
  counts: {
    sessions: number;
    open: number;
    ended: number;
    claims: number;
    resourcesEverClaimed: number;
    stateRecords: number;
    gates: number;
    gatesHeld: number;
  };
}

async function withStore<T>(location: string, fn: (s: Store) => Promise<T>): Promise<T> {
  const store = await openStore(location);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

/** Opening a store brings its schema to this version (migrations are transactional; a newer schema is refused untouched). */
export function migrateStore(location: string): Promise<StoreInfo> {
  return withStore(location, async (s) => s.info);
}

export function storeStatus(location: string): Promise<StoreStatus> {
  return withStore(location, async (s) => {
    const d = await s.dump();
    const open = d.sessions.filter((x) => x.endedAt === null).length;
    const held = await Promise.all(d.gates.map((g) => s.peekGate(g.name)));
    return {
      ...s.info,
      ...(s.info.backend === 'postgres'
        ? { broker: brokerStatus(pgTarget(location).connectionString, process.env) }
        : {}),
      counts: {
        sessions: d.sessions.length,
        open,
        ended: d.sessions.length - open,
        claims: d.claims.length,
        resourcesEverClaimed: d.fences.length,
        stateRecords: d.state.length,
        gates: d.gates.length,
        gatesHeld: held.filter(Boolean).length,
      },
    };
  });
}

/** Two spellings of one SQLite file (a symlink, a relative path, `..`, a hard link): same device and inode. */
function sameSqliteFile(a: string, b: string): boolean {
  if (storeKind(a) !== 'sqlite' || storeKind(b) !== 'sqlite') return false;
  try {
    const [x, y] = [statSync(a), statSync(b)];
    return x.dev === y.dev && x.ino === y.ino;
  } catch {
    return false; // the target does not exist yet: a new file
  }
}

/** Copies everything from one store to another (SQLite file or postgres:// URL, either way). */
export async function copyStore(
  from: string,
  to: string,
  options: { force: boolean },
): Promise<{ from: StoreInfo; to: StoreInfo; sessions: number; claims: number; state: number; journal: number }> {
  if (from === to || sameSqliteFile(from, to))
    throw new LanesError('E_USAGE', `copy needs two different stores: ${from} and ${to} are the same file`, {
      hint: 'give --from and --to different locations (a copy onto itself would duplicate its journal)',
    });
  if (storeKind(from) === 'sqlite' && !existsSync(from)) {
    throw new LanesError('E_NOT_FOUND', `the source store ${from} does not exist`, {
      hint: 'give the path of an existing lanes.db (default $LANES_HOME/lanes.db) or a postgres:// URL',
    });
  }
  return withStore(from, (src) =>
    withStore(to, async (dst) => {
      const d = await src.dump({ journal: true });
      await dst.load(d, { replace: options.force });
      return {
        from: src.info,
        to: dst.info,
        sessions: d.sessions.length,
        claims: d.claims.length,
        state: d.state.length,
        journal: d.journal?.length ?? 0,
      };
    }),
  );
}
