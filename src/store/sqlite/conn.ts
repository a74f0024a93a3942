import type { SqliteDb, SqliteStatement } from './driver.js';
import { LanesError } from '../../core/errors.js';
import { SQLITE_DRIVER, openDatabase } from './driver.js';
import { outOfSpace } from './full-disk.js';
import { migrate, schemaVersionOf } from './schema.js';
import { sqliteError } from './errors.js';
import { closedToOthers } from './store-file.js';

export interface SqliteOptions {
  /** How long one statement may wait for another process' write lock before E_STORE_LOCKED. */
  busyTimeoutMs?: number;
}

/** The store's clock, in SQL, so leases never depend on a caller's clock. */
export const NOW = `CAST(unixepoch('subsec') * 1000 AS INTEGER)`;

/** What a no-wait write returns (tryImmediate, tryRun) when another process holds the store's write lock. */
export const LOCKED: unique symbol = Symbol('lanes.store.locked');

const SOON_PAUSES_MS = [0.02, 0.05, 0.1, 0.2, 0.5];
const pauseCell = new Int32Array(new SharedArrayBuffer(4));

function isBusy(e: unknown): boolean {
  const code = String((e as { code?: unknown } | null)?.code ?? '');
  return code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_');
}

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
 * One SQLite connection (node:sqlite: driver.ts) with the store's transaction discipline: every read-modify-write
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
  // One transaction wrapper for the connection, not one per call.
  private readonly txn: { immediate(fn: (now: number) => unknown): unknown };
  private readonly plainTxn: { immediate(fn: () => unknown): unknown };
  // Whether the busy timeout is 0, as the last no-wait write left it: the next ordinary call sets
  // it back (one cached statement), so a run of gate steps toggles it once, not per step.
  private noWaiting = false;

  private constructor(
    readonly db: SqliteDb,
    readonly file: string,
    readonly busyMs: number,
    readonly schemaVersion: number,
  ) {
    this.txn = db.transaction((fn: (now: number) => unknown) => fn(this.clock()));
    this.plainTxn = db.transaction((fn: () => unknown) => fn());
  }

  /** What `lanes store status` names. */
  readonly driver = SQLITE_DRIVER;

  static open(file: string, options: SqliteOptions = {}): SqliteConn {
    const busyMs = options.busyTimeoutMs ?? 5000;
    let db: SqliteDb | undefined;
    try {
      if (file !== ':memory:') closedToOthers(file);
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
        this.patient();
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
    return Promise.resolve().then(() =>
      this.wrap(() => {
        this.patient();
        return this.plainTxn.immediate(fn) as T;
      }),
    );
  }

  /** A single statement or plain reads (each statement is atomic on its own). */
  run<T>(fn: () => T): Promise<T> {
    return Promise.resolve().then(() =>
      this.wrap(() => {
        this.patient();
        return fn();
      }),
    );
  }

  /**
   * Plain reads, in whichever busy mode the connection is in: a gate's waiters poll by reads
   * between no-wait writes, and setting the timeout back and forth for each would cost more than
   * the read. A read that finds the store busy (only while SQLite recovers or resets the WAL) is
   * retried once with the timeout set back.
   */
  glance<T>(fn: () => T): Promise<T> {
    return Promise.resolve().then(() =>
      this.wrap(() => {
        try {
          return fn();
        } catch (e) {
          if (!this.noWaiting || !isBusy(e)) throw e;
          this.patient();
          return fn();
        }
      }),
    );
  }

  /**
   * BEGIN IMMEDIATE … COMMIT that never waits for another process' write lock: LOCKED, with fn
   * never run, when one holds it. SQLite's own wait (its busy handler) sleeps 1, 2, 5 … up to
   * 100 ms between tries and lets whoever is awake take the lock first; a gate's waiters retry
   * on their own schedule instead, in their line (gate-line.ts).
   */
  tryImmediate<T>(fn: () => T): Promise<T | typeof LOCKED> {
    return Promise.resolve().then(() =>
      this.wrap(() => {
        this.noWait();
        let ran = false;
        try {
          return this.plainTxn.immediate(() => {
            ran = true;
            return fn();
          }) as T;
        } catch (e) {
          if (!ran && isBusy(e)) return LOCKED;
          throw e;
        }
      }),
    );
  }

  /** One statement that never waits for another process' write lock (LOCKED instead; nothing written). */
  tryRun<T>(statement: () => T): Promise<T | typeof LOCKED> {
    return Promise.resolve().then(() =>
      this.wrap(() => {
        this.noWait();
        try {
          return statement();
        } catch (e) {
          if (isBusy(e)) return LOCKED;
          throw e;
        }
      }),
    );
  }

  /**
   * BEGIN IMMEDIATE … COMMIT that, while another process writes, tries again after pauses of tens
   * of µs before falling back to SQLite's own wait (whose first sleep is a whole millisecond): for
   * a gate's release, which a contended gate's next holder is waiting for.
   */
  async immediateSoon<T>(fn: () => T): Promise<T> {
    for (const ms of SOON_PAUSES_MS) {
      const done = await this.tryImmediate(fn);
      if (done !== LOCKED) return done;
      Atomics.wait(pauseCell, 0, 0, ms);
    }
    return this.immediateNoClock(fn);
  }

  private noWait(): void {
    if (this.noWaiting) return;
    this.stmt('PRAGMA busy_timeout = 0').run();
    this.noWaiting = true;
  }

  private patient(): void {
    if (!this.noWaiting) return;
    this.stmt(`PRAGMA busy_timeout = ${this.busyMs}`).run();
    this.noWaiting = false;
  }

  clock(): number {
    return (this.stmt(`SELECT ${NOW} AS now`).get() as { now: number }).now;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
