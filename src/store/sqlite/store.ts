import { SqliteConn } from './conn.js';
import type { SqliteOptions } from './conn.js';
import { sqliteSessions } from './sessions.js';
import { sqliteSessionLife } from './session-life.js';
import { sqliteDead } from './dead.js';
import { sqliteClaims } from './claims.js';
import { sqliteGates } from './gates.js';
import { sqliteDump } from './dump.js';
import { sqliteJournal } from './journal.js';
import { sqliteWaits } from './waits.js';
import { sqliteTouched } from './touched.js';
import { sqliteChanges } from './changes.js';
import { sqliteSeats } from './seats.js';
import type { Store } from '../types.js';

export type { SqliteOptions };

/** The embedded store. */
export type SqliteStore = Store;

/**
 * The embedded store, assembled from its parts (sessions.ts, claims.ts, gates.ts, dump.ts), each
 * built on the one connection whose transaction discipline they share (conn.ts).
 */
export const SqliteStore = {
  open(file: string, options: SqliteOptions = {}): SqliteStore {
    const conn = SqliteConn.open(file, options);
    return {
      info: { backend: 'sqlite', location: conn.file, schemaVersion: conn.schemaVersion, driver: conn.driver },
      now: () => conn.run(() => conn.clock()),
      close: () => conn.run(() => conn.close()),
      ...sqliteSessions(conn),
      ...sqliteSessionLife(conn),
      ...sqliteDead(conn),
      ...sqliteClaims(conn),
      ...sqliteGates(conn),
      ...sqliteDump(conn),
      ...sqliteJournal(conn),
      ...sqliteWaits(conn),
      ...sqliteTouched(conn),
      ...sqliteChanges(conn),
      ...sqliteSeats(conn),
    };
  },
};
