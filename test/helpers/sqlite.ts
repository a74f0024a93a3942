import { openDatabase } from '../../src/store/sqlite/driver.js';
import type { SqliteDb } from '../../src/store/sqlite/driver.js';

/** A plain SQLite handle on `file`, through the driver lanes chooses on this Node (src/store/sqlite/driver.ts). */
export function rawSqlite(file: string): SqliteDb {
  return openDatabase(file, { timeout: 5000 });
}

/** `PRAGMA integrity_check` of a SQLite store: "ok" when the file is intact. */
export function integrity(file: string): string {
  const db = rawSqlite(file);
  try {
    return String(db.pragma('integrity_check', { simple: true }));
  } finally {
    db.close();
  }
}
