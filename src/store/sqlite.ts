import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { LanesError } from '../core/errors.js';
import { planClaims } from '../core/claim-plan.js';
import { resourcesConflict } from '../core/resource.js';
import type { ResourceRef } from '../core/resource.js';
import { migrate } from './sqlite-schema.js';
import { sqliteError } from './sqlite-errors.js';
import { toClaim, toGate, toSession, toState } from './sqlite-rows.js';
import type { ClaimRow, GateRow, SessionRow, StateRow } from './sqlite-rows.js';
import type {
  ClaimRecord, ClaimResult, GateAttempt, GateHolder, GateRecord, Grant, NewSession, OwnerJudge,
  SessionRecord, StateChange, StateRecord, Store, StoreInfo,
} from './types.js';

export interface SqliteOptions {
  /** How long one statement may wait for another process' write lock before E_STORE_LOCKED. */
  busyTimeoutMs?: number;
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

const NOW_SQL = `SELECT CAST(unixepoch('subsec') * 1000 AS INTEGER) AS now`;

/**
 * The embedded store. Every read-modify-write runs in BEGIN IMMEDIATE (the write lock is taken
 * up front, so two writers never both read and then both write). Transactions are short and never
 * span the caller's async work; long waits (gates, claims --wait) are polls outside transactions.
 *
 * synchronous: NORMAL in WAL mode never corrupts the file and survives any process crash
 * (SIGKILL included); a power loss may drop the last commits. That is harmless for heartbeats,
 * sessions and state (a reboot kills every owner anyway; the boot id says so), but a fencing token
 * must never be granted twice, so grants commit with synchronous=FULL.
 */
export class SqliteStore implements Store {
  readonly info: StoreInfo;
  private readonly db: BetterSqlite3.Database;
  private readonly busyMs: number;

  private constructor(db: BetterSqlite3.Database, file: string, schemaVersion: number, busyMs: number) {
    this.db = db;
    this.busyMs = busyMs;
    this.info = { backend: 'sqlite', location: file, schemaVersion };
  }

  static open(file: string, options: SqliteOptions = {}): SqliteStore {
    const busyMs = options.busyTimeoutMs ?? 5000;
    let db: BetterSqlite3.Database | undefined;
    try {
      if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
      // Loaded lazily: commands that never touch the store do not pay for the native module.
      const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
      db = new Database(file, { timeout: busyMs });
      const conn = db;
      // Switching a fresh file to WAL needs an exclusive lock, and SQLite reports SQLITE_BUSY for it
      // at once rather than through the busy handler when several processes open a new store together.
      retryBusy(() => {
        if (String(conn.pragma('journal_mode', { simple: true })).toLowerCase() !== 'wal') conn.pragma('journal_mode = WAL');
      }, busyMs);
      db.pragma('synchronous = NORMAL');
      db.pragma('foreign_keys = ON');
      const version = retryBusy(() => migrate(conn, file), busyMs);
      return new SqliteStore(db, file, version, busyMs);
    } catch (e) {
      db?.close();
      throw sqliteError(e, file, busyMs);
    }
  }

  private readonly statements = new Map<string, BetterSqlite3.Statement>();

  /** Prepared once per connection: the gate and hook paths run the same few statements often. */
  private stmt(sql: string): BetterSqlite3.Statement {
    let s = this.statements.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.statements.set(sql, s);
    }
    return s;
  }

  private wrap<T>(fn: () => T): T {
    try {
      return fn();
    } catch (e) {
      throw sqliteError(e, this.info.location, this.busyMs);
    }
  }

  /** BEGIN IMMEDIATE … COMMIT; rolled back whole on any error. */
  private immediate<T>(fn: (now: number) => T, durable = false): Promise<T> {
    return Promise.resolve().then(() =>
      this.wrap(() => {
        if (durable) this.db.pragma('synchronous = FULL');
        try {
          return this.db.transaction(() => fn(this.clock())).immediate();
        } finally {
          if (durable) this.db.pragma('synchronous = NORMAL');
        }
      }),
    );
  }

  private read<T>(fn: () => T): Promise<T> {
    return Promise.resolve().then(() => this.wrap(fn));
  }

  private clock(): number {
    return (this.stmt(NOW_SQL).get() as { now: number }).now;
  }

  now(): Promise<number> {
    return this.read(() => this.clock());
  }

  insertSession(s: NewSession): Promise<SessionRecord> {
    return this.immediate((now) => {
      const exists = this.stmt(`SELECT 1 FROM sessions WHERE id = ?`).get(s.id);
      if (exists) throw new LanesError('E_USAGE', `a session with id ${s.id} already exists`, { hint: 'choose another id, or end the old session with `lanes end ' + s.id + '`' });
      this.stmt(
        `INSERT INTO sessions (id, label, agent, ticket, repo, worktree, cwd, host, boot_id, pid, start_time, command, created_at, last_seen_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(s.id, s.label, s.agent, s.ticket, s.repo, s.worktree, s.cwd, s.owner.host, s.owner.bootId, s.owner.pid, s.owner.startTime, s.command, now, now);
      return this.sessionRow(s.id) as SessionRecord;
    });
  }

  private sessionRow(id: string): SessionRecord | null {
    const row = this.stmt(`SELECT * FROM sessions WHERE id = ?`).get(id) as SessionRow | undefined;
    return row ? toSession(row) : null;
  }

  getSession(id: string): Promise<SessionRecord | null> {
    return this.read(() => this.sessionRow(id));
  }

  listSessions(options: { includeEnded: boolean }): Promise<SessionRecord[]> {
    const where = options.includeEnded ? '' : 'WHERE ended_at IS NULL';
    return this.read(() => (this.stmt(`SELECT * FROM sessions ${where} ORDER BY created_at, id`).all() as SessionRow[]).map(toSession));
  }

  touchSession(id: string): Promise<boolean> {
    return this.immediate((now) => this.stmt(`UPDATE sessions SET last_seen_at = ? WHERE id = ? AND ended_at IS NULL`).run(now, id).changes > 0);
  }

  endSession(id: string, reason: string): Promise<{ session: SessionRecord; released: ClaimRecord[] } | null> {
    return this.immediate((now) => {
      const before = this.sessionRow(id);
      if (!before) return null;
      const released = (this.stmt(`SELECT * FROM claims WHERE session_id = ? ORDER BY scope, kind, name`).all(id) as ClaimRow[]).map(toClaim);
      this.stmt(`DELETE FROM claims WHERE session_id = ?`).run(id);
      if (before.endedAt === null) this.stmt(`UPDATE sessions SET ended_at = ?, end_reason = ? WHERE id = ?`).run(now, reason, id);
      return { session: this.sessionRow(id) as SessionRecord, released };
    });
  }

  acquireClaims(sessionId: string, wanted: ResourceRef[], judge: OwnerJudge): Promise<ClaimResult> {
    return this.immediate((now): ClaimResult => {
      const me = this.sessionRow(sessionId);
      if (!me) throw new LanesError('E_UNKNOWN_SESSION', `session ${sessionId} is not in the store ${this.info.location}`, { hint: 'start one with `lanes start`' });
      if (me.endedAt !== null) throw new LanesError('E_SESSION_ENDED', `session ${sessionId} has ended (${me.endReason ?? 'no reason'})`, { hint: 'start a new session with `lanes start`' });
      const existing: ClaimRecord[] = [];
      const seen = new Set<string>();
      for (const w of wanted) {
        const key = `${w.scope}\0${w.kind}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const rows = w.kind === 'path'
          ? this.stmt(`SELECT * FROM claims WHERE scope = ? AND kind = 'path'`).all(w.scope)
          : this.stmt(`SELECT * FROM claims WHERE scope = ? AND kind = ? AND name IN (${wanted.map(() => '?').join(',')})`).all(w.scope, w.kind, ...wanted.map((x) => x.name));
        existing.push(...(rows as ClaimRow[]).map(toClaim));
      }
      const sessions = new Map<string, SessionRecord | null>();
      const holder = (id: string) => {
        if (!sessions.has(id)) sessions.set(id, this.sessionRow(id));
        return sessions.get(id) ?? null;
      };
      const plan = planClaims(sessionId, wanted, existing, (id) => {
        const s = holder(id);
        if (!s) return { live: false, why: 'its session is no longer in the store' };
        if (s.endedAt !== null) return { live: false, why: `its session ended (${s.endReason ?? 'no reason'})` };
        return judge(s.owner, s.lastSeenAt, now);
      });
      if (plan.blockers.length > 0) {
        return { ok: false, blockers: plan.blockers.map((b) => ({ ...b, holder: holder(b.held.sessionId) })) };
      }
      const del = this.stmt(`DELETE FROM claims WHERE scope = ? AND kind = ? AND name = ?`);
      for (const t of plan.takeovers) del.run(t.held.scope, t.held.kind, t.held.name);
      const grants: Grant[] = [];
      for (const w of wanted) {
        const token = this.nextToken(w.scope, w.kind, w.name);
        del.run(w.scope, w.kind, w.name);
        this.stmt(`INSERT INTO claims (scope, kind, name, session_id, token, acquired_at) VALUES (?, ?, ?, ?, ?, ?)`).run(w.scope, w.kind, w.name, sessionId, token, now);
        const t = plan.takeovers.find((x) => resourcesConflict(w, x.held));
        grants.push(t ? { ref: w, token, takenOver: { claim: t.held, session: holder(t.held.sessionId), why: t.why } } : { ref: w, token });
      }
      this.stmt(`UPDATE sessions SET last_seen_at = ? WHERE id = ?`).run(now, sessionId);
      return { ok: true, grants };
    }, true);
  }

  private nextToken(scope: string, kind: string, name: string): number {
    const row = this.stmt(
      `INSERT INTO fences (scope, kind, name, last_token) VALUES (?, ?, ?, 1)
       ON CONFLICT (scope, kind, name) DO UPDATE SET last_token = last_token + 1 RETURNING last_token`,
    ).get(scope, kind, name) as { last_token: number };
    return row.last_token;
  }

  releaseClaims(sessionId: string, refs: ResourceRef[]): Promise<{ released: ClaimRecord[]; notHeld: ResourceRef[] }> {
    return this.immediate(() => {
      const released: ClaimRecord[] = [];
      const notHeld: ResourceRef[] = [];
      for (const r of refs) {
        const row = this.stmt(`DELETE FROM claims WHERE scope = ? AND kind = ? AND name = ? AND session_id = ? RETURNING *`).get(r.scope, r.kind, r.name, sessionId) as ClaimRow | undefined;
        if (row) released.push(toClaim(row));
        else notHeld.push(r);
      }
      return { released, notHeld };
    });
  }

  listClaims(filter: { scopes?: string[]; sessionId?: string } = {}): Promise<ClaimRecord[]> {
    return this.read(() => {
      const where: string[] = [];
      const args: unknown[] = [];
      if (filter.scopes) {
        where.push(`scope IN (${filter.scopes.map(() => '?').join(',') || "''"})`);
        args.push(...filter.scopes);
      }
      if (filter.sessionId !== undefined) {
        where.push('session_id = ?');
        args.push(filter.sessionId);
      }
      const sql = `SELECT * FROM claims ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY scope, kind, name`;
      return (this.stmt(sql).all(...args) as ClaimRow[]).map(toClaim);
    });
  }

  lastToken(ref: ResourceRef): Promise<number> {
    return this.read(() => {
      const row = this.stmt(`SELECT last_token FROM fences WHERE scope = ? AND kind = ? AND name = ?`).get(ref.scope, ref.kind, ref.name) as { last_token: number } | undefined;
      return row?.last_token ?? 0;
    });
  }

  tryAcquireGate(name: string, holder: GateHolder, leaseMs: number, judge: OwnerJudge, stateOf: string | null): Promise<GateAttempt> {
    return this.immediate((now): GateAttempt => {
      const row = this.stmt(`SELECT * FROM gates WHERE name = ?`).get(name) as GateRow | undefined;
      let previous: GateRecord | null = null;
      let previousWhy = '';
      if (row) {
        const current = toGate(row);
        // A gate's lease is its holder's heartbeat: it matters only for holders on other hosts.
        const verdict = judge(current.owner, current.leaseUntil - leaseMs, now);
        if (verdict.live) return { acquired: false, holder: current };
        previous = current;
        previousWhy = verdict.why;
      }
      const token = this.nextToken('gate', 'gate', name);
      const o = holder.owner;
      this.stmt(
        `INSERT INTO gates (name, token, session_id, host, boot_id, pid, start_time, command, acquired_at, lease_until)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET token = excluded.token, session_id = excluded.session_id, host = excluded.host,
           boot_id = excluded.boot_id, pid = excluded.pid, start_time = excluded.start_time, command = excluded.command,
           acquired_at = excluded.acquired_at, lease_until = excluded.lease_until`,
      ).run(name, token, holder.sessionId, o.host, o.bootId, o.pid, o.startTime, holder.command, now, now + leaseMs);
      const state = stateOf === null ? null : this.stateRow(stateOf);
      return { acquired: true, token, previous, previousWhy, state };
    });
  }

  peekGate(name: string): Promise<GateRecord | null> {
    return this.read(() => {
      const row = this.stmt(`SELECT * FROM gates WHERE name = ?`).get(name) as GateRow | undefined;
      return row ? toGate(row) : null;
    });
  }

  renewGate(name: string, token: number, leaseMs: number): Promise<boolean> {
    return this.immediate((now) => this.stmt(`UPDATE gates SET lease_until = ? WHERE name = ? AND token = ?`).run(now + leaseMs, name, token).changes > 0);
  }

  releaseGate(name: string, token: number, stateOf: string | null, change: StateChange): Promise<void> {
    return this.immediate((now) => {
      const held = this.stmt(`DELETE FROM gates WHERE name = ? AND token = ? RETURNING token`).get(name, token);
      if (!held) {
        throw new LanesError('E_FENCED', `lost the gate ${name}: it was taken over while this process held it (token ${token})`, {
          hint: 'the change was NOT written; run the operation again',
          details: { gate: name, token },
        });
      }
      if (stateOf === null || change.kind === 'keep') return;
      if (change.kind === 'delete') {
        this.stmt(`DELETE FROM state WHERE session_id = ?`).run(stateOf);
        return;
      }
      this.stmt(
        `INSERT INTO state (session_id, value, version, updated_at) VALUES (?, ?, 1, ?)
         ON CONFLICT (session_id) DO UPDATE SET value = excluded.value, version = state.version + 1, updated_at = excluded.updated_at`,
      ).run(stateOf, change.value, now);
    });
  }

  private stateRow(sessionId: string): StateRecord | null {
    const row = this.stmt(`SELECT * FROM state WHERE session_id = ?`).get(sessionId) as StateRow | undefined;
    return row ? toState(row) : null;
  }

  readState(sessionId: string): Promise<StateRecord | null> {
    return this.read(() => this.stateRow(sessionId));
  }

  close(): Promise<void> {
    return this.read(() => {
      if (this.db.open) this.db.close();
    });
  }
}
