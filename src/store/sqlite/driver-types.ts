/**
 * What the store asks of SQLite: a small synchronous API (the shape better-sqlite3 had, which the
 * store was written against) that Node's own `node:sqlite` is adapted to (node-sqlite.ts). Errors
 * carry SQLite's result code by name (`code: 'SQLITE_BUSY'`, `'SQLITE_IOERR_WRITE'`, …).
 */
export interface SqliteStatement {
  run(...args: unknown[]): { changes: number; lastInsertRowid: number | bigint };
  get(...args: unknown[]): unknown;
  all(...args: unknown[]): unknown[];
  /** Rows as arrays of their columns, in order. */
  raw(on?: boolean): SqliteStatement;
}

export interface SqliteDb {
  readonly open: boolean;
  prepare(sql: string): SqliteStatement;
  exec(sql: string): void;
  /** `PRAGMA text`: its rows, or with `simple` the first column of the first row. */
  pragma(text: string, options?: { simple?: boolean }): unknown;
  /** fn run inside BEGIN IMMEDIATE … COMMIT, rolled back whole when it throws. */
  transaction<A extends unknown[], R>(fn: (...args: A) => R): { immediate(...args: A): R };
  close(): void;
}
