import { PgConn } from './conn.js';
import { pgTouched } from './touched.js';
import { pgSeats } from './seats.js';
import type { PgOptions } from './conn.js';
import { pgSessions } from './sessions.js';
import { pgSessionLife } from './session-life.js';
import { pgDead } from './dead.js';
import { pgClaims } from './claims.js';
import { pgClaimReads } from './claim-reads.js';
import { pgGates } from './gates.js';
import { pgDump } from './dump.js';
import { pgJournal } from './journal.js';
import { pgWaits } from './waits.js';
import { pgChanges } from './changes.js';
import { PG_NOW } from './schema.js';
import type { Store } from '../types.js';

export type { PgOptions };

/** The team store on PostgreSQL. */
export type PostgresStore = Store;

/**
 * The team store on PostgreSQL (same contract as SQLite), assembled from its parts (sessions.ts,
 * claims.ts, gates.ts, dump.ts) on one pool. Every call is one transaction and times come from
 * the server's clock (conn.ts).
 */
export const PostgresStore = {
  async open(url: string, options: PgOptions = {}): Promise<PostgresStore> {
    const conn = await PgConn.open(url, options);
    return {
      info: {
        backend: 'postgres',
        location: conn.target.display,
        schemaVersion: conn.schemaVersion,
        connection: conn.viaBroker ? 'broker' : 'direct',
      },
      async now() {
        const [row] = await conn.query<{ now: number }>(`SELECT ${PG_NOW} AS now`);
        return Number(row?.now);
      },
      close: () => conn.close(),
      ...pgSessions(conn),
      ...pgSessionLife(conn),
      ...pgDead(conn),
      ...pgClaims(conn),
      ...pgClaimReads(conn),
      ...pgGates(conn),
      ...pgDump(conn),
      ...pgJournal(conn),
      ...pgWaits(conn),
      ...pgTouched(conn),
      ...pgChanges(conn),
      ...pgSeats(conn),
    };
  },
};
