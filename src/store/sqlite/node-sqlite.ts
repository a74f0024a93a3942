import { load } from '../../core/builtins.js';
import type { SqliteDb, SqliteStatement } from './driver-types.js';

// The store on Node's own SQLite (`node:sqlite`, DatabaseSync: Node 22.13+ and 23.4+ without a
// flag), behind the few calls the store makes: prepare/get/all/run (positional or named
// parameters), raw rows, exec, pragma, and BEGIN IMMEDIATE transactions. Its errors carry SQLite's
// extended result code as a number (`errcode`); they are given SQLite's names (`code:
// 'SQLITE_BUSY'`, …), which the error mapping (errors.ts, full-disk.ts) reads.

interface NodeStatement {
  run(...args: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  get(...args: unknown[]): Record<string, unknown> | undefined;
  all(...args: unknown[]): Record<string, unknown>[];
}

interface NodeDatabase {
  prepare(sql: string): NodeStatement;
  exec(sql: string): void;
  close(): void;
}

const PRIMARY: Record<number, string> = {
  1: 'ERROR',
  2: 'INTERNAL',
  3: 'PERM',
  4: 'ABORT',
  5: 'BUSY',
  6: 'LOCKED',
  7: 'NOMEM',
  8: 'READONLY',
  9: 'INTERRUPT',
  10: 'IOERR',
  11: 'CORRUPT',
  12: 'NOTFOUND',
  13: 'FULL',
  14: 'CANTOPEN',
  15: 'PROTOCOL',
  17: 'SCHEMA',
  18: 'TOOBIG',
  19: 'CONSTRAINT',
  20: 'MISMATCH',
  21: 'MISUSE',
  23: 'AUTH',
  25: 'RANGE',
  26: 'NOTADB',
};

/** The extended codes lanes tells apart (sqlite3.h), by number. */
const EXTENDED: Record<number, string> = {
  517: 'BUSY_SNAPSHOT',
  261: 'BUSY_RECOVERY',
  778: 'IOERR_WRITE',
  1034: 'IOERR_FSYNC',
  1546: 'IOERR_TRUNCATE',
  4874: 'IOERR_SHMSIZE',
  5386: 'IOERR_SHMMAP',
  4618: 'IOERR_SHMOPEN',
  3338: 'IOERR_NOMEM',
  264: 'READONLY_RECOVERY',
  520: 'READONLY_CANTLOCK',
  1032: 'READONLY_DBMOVED',
  267: 'CORRUPT_VTAB',
};

/** SQLite's name for the result code of a node:sqlite error (the error itself otherwise). */
function named(e: unknown): unknown {
  const code = (e as { errcode?: unknown }).errcode;
  if (typeof code !== 'number' || (e as { code?: unknown }).code !== 'ERR_SQLITE_ERROR') return e;
  const name = EXTENDED[code] ?? PRIMARY[code & 0xff] ?? `UNKNOWN_${code}`;
  Object.defineProperty(e, 'code', { value: `SQLITE_${name}`, configurable: true });
  return e;
}

function guard<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    throw named(e);
  }
}

class Statement implements SqliteStatement {
  private arrays = false;

  constructor(private readonly s: NodeStatement) {}

  run(...args: unknown[]) {
    return guard(() => {
      const r = this.s.run(...args);
      return { changes: Number(r.changes), lastInsertRowid: r.lastInsertRowid };
    });
  }

  get(...args: unknown[]): unknown {
    const row = guard(() => this.s.get(...args));
    return this.arrays && row ? Object.values(row) : row;
  }

  all(...args: unknown[]): unknown[] {
    const rows = guard(() => this.s.all(...args));
    return this.arrays ? rows.map((r) => Object.values(r)) : rows;
  }

  /** Rows as arrays of their columns, in order. */
  raw(on = true): this {
    this.arrays = on;
    return this;
  }
}

class Database implements SqliteDb {
  open = true;

  constructor(private readonly db: NodeDatabase) {}

  prepare(sql: string): SqliteStatement {
    return new Statement(guard(() => this.db.prepare(sql)));
  }

  exec(sql: string): void {
    guard(() => this.db.exec(sql));
  }

  pragma(text: string, options: { simple?: boolean } = {}): unknown {
    const rows = guard(() => this.db.prepare(`PRAGMA ${text}`).all());
    return options.simple ? (rows[0] ? Object.values(rows[0])[0] : undefined) : rows;
  }

  transaction<A extends unknown[], R>(fn: (...args: A) => R): { immediate(...args: A): R } {
    return {
      immediate: (...args: A): R => {
        this.exec('BEGIN IMMEDIATE');
        try {
          const result = fn(...args);
          this.exec('COMMIT');
          return result;
        } catch (e) {
          try {
            this.db.exec('ROLLBACK');
          } catch {
            // SQLite already rolled back (a full disk, a failed commit): nothing to undo
          }
          throw e;
        }
      },
    };
  }

  close(): void {
    if (!this.open) return;
    this.open = false;
    this.db.close();
  }
}

/** node:sqlite loaded at the first store opened (a warning-free load, once). */
let ctor: (new (file: string) => NodeDatabase) | undefined;

/**
 * Node 22 flags node:sqlite experimental and says so on stderr at its first load; a CLI that sits
 * in every tool call must not print that line each time. Only that one warning is dropped, only
 * during that load.
 */
function loadNodeSqlite(): new (file: string) => NodeDatabase {
  const emit = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    if (/SQLite is an experimental feature/.test(typeof warning === 'string' ? warning : warning.message)) return;
    return (emit as (...a: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    return (load('node:sqlite') as { DatabaseSync: new (file: string) => NodeDatabase }).DatabaseSync;
  } finally {
    process.emitWarning = emit;
  }
}

export function openNodeSqlite(file: string, options: { timeout: number }): SqliteDb {
  ctor ??= loadNodeSqlite();
  const db = new Database(guard(() => new ctor!(file)));
  db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.timeout))}`);
  return db;
}
