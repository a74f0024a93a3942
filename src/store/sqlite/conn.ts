import { chmodSync, closeSync, constants, lstatSync, mkdirSync, openSync, readSync, statSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { dirname } from 'node:path';
import type { SqliteDb, SqliteStatement } from './driver.js';
import { LanesError } from '../../core/errors.js';
import { openDatabase, sqliteDriver } from './driver.js';
import { outOfSpace } from './full-disk.js';
import { migrate, schemaVersionOf } from './schema.js';
import { sqliteError } from './errors.js';

export interface SqliteOptions {
  /** How long one statement may wait for another process' write lock before E_STORE_LOCKED. */
  busyTimeoutMs?: number;
}

/** The store's clock, in SQL, so leases never depend on a caller's clock. */
export const NOW = `CAST(unixepoch('subsec') * 1000 AS INTEGER)`;

/** Retries an operation that SQLite refuses with SQLITE_BUSY without waiting, up to the busy bound. */
function retryBusy<T>(fn: () => T, busyMs: number): T {
  const deadline = Date.now() + busyMs;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      return fn();
    } catch (e) {
      const code = String((e as { code?: unknown }).code ?? '');
      if (!code.startsWith('SQLITE_BUSY') || Date.now() >= deadline) throw e;
      Atomics.wait(pause, 0, 0, 2 + Math.random() * 8);
    }
  }
}

/**
 * One SQLite connection (node:sqlite or better-sqlite3: driver.ts) with the store's transaction discipline: every read-modify-write
 * runs in BEGIN IMMEDIATE (the write lock is taken up front, so two writers never both read and
 * then both write), transactions are short and never span the caller's async work, and every
 * SQLite error leaves as a LanesError naming the file.
 *
 * synchronous: NORMAL in WAL mode never corrupts the file and survives any process crash
 * (SIGKILL included); a power loss may drop the last commits. That is harmless for heartbeats,
 * sessions, gates and state (a reboot kills every owner anyway; the boot id says so), but a
 * fencing token must never be granted twice, so claim grants commit with synchronous=FULL.
 */
export class SqliteConn {
  private readonly statements = new Map<string, SqliteStatement>();
  // One transaction wrapper for the connection (better-sqlite3 builds a new one per db.transaction call).
  private readonly txn: { immediate(fn: (now: number) => unknown): unknown };
  private readonly plainTxn: { immediate(fn: () => unknown): unknown };

  private constructor(
    readonly db: SqliteDb,
    readonly file: string,
    readonly busyMs: number,
    readonly schemaVersion: number,
  ) {
    this.txn = db.transaction((fn: (now: number) => unknown) => fn(this.clock()));
    this.plainTxn = db.transaction((fn: () => unknown) => fn());
  }

  /** node:sqlite or better-sqlite3 (driver.ts chooses). */
  readonly driver = sqliteDriver();

  static open(file: string, options: SqliteOptions = {}): SqliteConn {
    const busyMs = options.busyTimeoutMs ?? 5000;
    let db: SqliteDb | undefined;
    try {
      if (file !== ':memory:') {
        mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
        closedToOthers(file);
      }
      const conn = openDatabase(file, { timeout: busyMs });
      db = conn;
      // Switching a fresh file to WAL needs an exclusive lock, and SQLite reports SQLITE_BUSY for it
      // at once rather than through the busy handler when several processes open a new store together.
      retryBusy(() => {
        if (String(conn.pragma('journal_mode', { simple: true })).toLowerCase() !== 'wal')
          conn.pragma('journal_mode = WAL');
      }, busyMs);
      conn.pragma('synchronous = NORMAL');
      const version = retryBusy(() => migrate(conn, file), busyMs);
      return new SqliteConn(conn, file, busyMs, version);
    } catch (e) {
      db?.close();
      if (outOfSpace(e, file)) return SqliteConn.openOnFullDisk(file, busyMs, e);
      throw sqliteError(e, file, busyMs);
    }
  }

  /**
   * A store whose disk is full cannot be opened the usual way (WAL mode sizes a shared-memory file
   * on open), yet a handoff or a state must stay readable until space is freed. In EXCLUSIVE
   * locking mode SQLite keeps the WAL index in this process' memory and needs no SHM, so reads
   * work; any write still fails with the disk-full error (nothing is half-written: SQLite rolls it
   * back). The lock is held until this process closes the store, so other processes wait for it
   * (a CLI call lasts milliseconds). No schema upgrade happens here: it would need the space.
   */
  private static openOnFullDisk(file: string, busyMs: number, first: unknown): SqliteConn {
    let db: SqliteDb | undefined;
    try {
      db = openDatabase(file, { timeout: busyMs, fileMustExist: true });
      db.pragma('locking_mode = EXCLUSIVE');
      const version = schemaVersionOf(db, file);
      return new SqliteConn(db, file, busyMs, version);
    } catch (e) {
      db?.close();
      throw sqliteError(e instanceof LanesError ? e : first, file, busyMs);
    }
  }

  /** Prepared once per connection: the gate and hook paths run the same few statements often. */
  stmt(sql: string): SqliteStatement {
    let s = this.statements.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.statements.set(sql, s);
    }
    return s;
  }

  wrap<T>(fn: () => T): T {
    try {
      return fn();
    } catch (e) {
      throw sqliteError(e, this.file, this.busyMs);
    }
  }

  /** BEGIN IMMEDIATE … COMMIT with the store's clock; rolled back whole on any error. */
  immediate<T>(fn: (now: number) => T, durable = false): Promise<T> {
    return Promise.resolve().then(() =>
      this.wrap(() => {
        if (durable) this.db.pragma('synchronous = FULL');
        try {
          return this.txn.immediate(fn) as T;
        } finally {
          if (durable) this.db.pragma('synchronous = NORMAL');
        }
      }),
    );
  }

  /** BEGIN IMMEDIATE … COMMIT for statements that read the clock in SQL themselves (the hot gate path). */
  immediateNoClock<T>(fn: () => T): Promise<T> {
    return Promise.resolve().then(() => this.wrap(() => this.plainTxn.immediate(fn) as T));
  }

  /** A single statement or plain reads (each statement is atomic on its own). */
  run<T>(fn: () => T): Promise<T> {
    return Promise.resolve().then(() => this.wrap(fn));
  }

  clock(): number {
    return (this.stmt(`SELECT ${NOW} AS now`).get() as { now: number }).now;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

/**
 * The store file, created 0600 before SQLite opens it (SQLite gives the WAL and SHM files the
 * database file's mode), or tightened to 0600 when an earlier lanes created it readable by others.
 * One stat on the common path: every hook call opens the store.
 */
function closedToOthers(file: string): void {
  const st = statSync(file, { throwIfNoEntry: false });
  if (!st) {
    try {
      closeSync(
        openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600),
      );
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') return; // another process created it first, 0600 too
      throw new LanesError('E_STORE_IO', `cannot create the store ${file} (${code ?? (e as Error).message})`, {
        hint:
          code === 'ENOSPC' || code === 'EDQUOT'
            ? `the disk holding ${dirname(file)} is full: free some space`
            : `check the permissions of ${dirname(file)}`,
        details: { file, code },
      });
    }
    return;
  }
  // The store path is never a weapon: a device (/dev/null), a FIFO, a socket or a directory, or a
  // link to one, is refused and left as it is (a chmod of /dev/null by root breaks the machine).
  if (!st.isFile()) throw notAStore(file, kindOf(st), 'name a regular file for the store (or leave LANES_STORE unset)');
  if ((st.mode & 0o077) === 0 || st.uid !== process.getuid?.()) return;
  // Tightened only once it is known to be a SQLite database (or empty, which SQLite makes one);
  // anything else is left as it is, and SQLite's open then says it is not a store (E_STORE_CORRUPT).
  if (st.size > 0 && !hasSqliteHeader(file)) return;
  for (const f of [file, `${file}-wal`, `${file}-shm`]) {
    try {
      if (lstatSync(f).isFile()) chmodSync(f, 0o600);
    } catch {
      // a WAL or SHM that is not there (no one has the store open) needs nothing
    }
  }
}

function kindOf(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

function notAStore(file: string, what: string, hint: string): LanesError {
  return new LanesError('E_STORE_IO', `the store path ${file} is ${what}: refused, and left as it is`, {
    hint,
    details: { file },
  });
}

/** The first 16 bytes of every SQLite database file: "SQLite format 3" and a NUL. */
function hasSqliteHeader(file: string): boolean {
  const fd = openSync(file, constants.O_RDONLY);
  try {
    const head = Buffer.alloc(16);
    return readSync(fd, head, 0, 16, 0) === 16 && head.toString('latin1') === 'SQLite format 3\0';
  } catch {
    return false;
  } finally {
    closeSync(fd);
  }
}
