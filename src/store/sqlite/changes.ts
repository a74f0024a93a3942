import { NOW } from './conn.js';
import type { SqliteConn } from './conn.js';
import type { ChangeStore } from '../types.js';

/**
 * The change mark on SQLite, from two counters SQLite keeps anyway: `data_version`, which moves when
 * another connection (any process) commits, and `total_changes()`, the rows this connection changed
 * (its own commits do not move data_version). While both stand still nothing was written, and the
 * mark is one statement without a table read; when they moved, the journal's last number (one
 * b-tree edge) says whether an entry came.
 */
export function sqliteChanges(conn: SqliteConn): ChangeStore {
  let seen = '';
  let journal = '';
  return {
    changeMark(options = {}) {
      return conn.run(() => {
        const row = conn
          .stmt(`SELECT (SELECT data_version FROM pragma_data_version) AS v, total_changes() AS c, ${NOW} AS now`)
          .get() as { v: number; c: number; now: number };
        const written = `${row.v}:${row.c}`;
        if (written !== seen) {
          seen = written;
          journal = String((conn.stmt(`SELECT max(seq) AS seq FROM journal`).get() as { seq: number | null }).seq ?? 0);
        }
        return { journal, fleet: options.fleet === false ? null : written, now: row.now };
      });
    },
  };
}
