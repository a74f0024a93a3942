import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

/** `PRAGMA integrity_check` of a SQLite store, read-only: "ok" when the file is intact. */
export function integrity(file: string): string {
  const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
  const db = new Database(file, { readonly: true });
  try {
    return String(db.pragma('integrity_check', { simple: true }));
  } finally {
    db.close();
  }
}
