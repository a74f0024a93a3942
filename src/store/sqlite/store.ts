import { LanesError } from '../../core/errors.js';
import { decideClaims, grantOf } from '../shared/claim-decision.js';
import type { ResourceRef } from '../../core/resource.js';
import { SqliteConn } from './conn.js';
import type { SqliteOptions } from './conn.js';
import * as gates from './gates.js';
import * as dumps from './dump.js';
import { toClaim, toSession } from '../shared/rows.js';
import type { ClaimRow, SessionRow } from '../shared/rows.js';
import type {
  ClaimRecord, ClaimResult, GateAttempt, GateHolder, GateRecord, Grant, NewSession, OwnerJudge,
  SessionRecord, StateChange, StateRecord, Store, StoreDump, StoreInfo,
} from '../types.js';

export type { SqliteOptions };

/** The embedded store: sessions and claims here, gates and state in gates.ts, the connection discipline in conn.ts. */
export class SqliteStore implements Store {
  readonly info: StoreInfo;
  private readonly conn: SqliteConn;

  private constructor(conn: SqliteConn) {
    this.conn = conn;
    this.info = { backend: 'sqlite', location: conn.file, schemaVersion: conn.schemaVersion };
  }

  static open(file: string, options: SqliteOptions = {}): SqliteStore {
    return new SqliteStore(SqliteConn.open(file, options));
  }

  private stmt(sql: string) {
    return this.conn.stmt(sql);
  }

  private immediate<T>(fn: (now: number) => T, durable = false): Promise<T> {
    return this.conn.immediate(fn, durable);
  }

  private read<T>(fn: () => T): Promise<T> {
    return this.conn.run(fn);
  }

  now(): Promise<number> {
    return this.read(() => this.conn.clock());
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

  attachSession(s: NewSession): Promise<{ session: SessionRecord; created: boolean; reopened: boolean }> {
    return this.immediate((now) => {
      const before = this.sessionRow(s.id);
      if (!before) {
        this.stmt(
          `INSERT INTO sessions (id, label, agent, ticket, repo, worktree, cwd, host, boot_id, pid, start_time, command, created_at, last_seen_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        ).run(s.id, s.label, s.agent, s.ticket, s.repo, s.worktree, s.cwd, s.owner.host, s.owner.bootId, s.owner.pid, s.owner.startTime, s.command, now, now);
        return { session: this.sessionRow(s.id) as SessionRecord, created: true, reopened: false };
      }
      // The ticket survives a re-attach (it was claimed for this session); the rest follows the new owner.
      this.stmt(
        `UPDATE sessions SET agent = coalesce(?, agent), repo = ?, worktree = ?, cwd = ?, host = ?, boot_id = ?, pid = ?, start_time = ?,
           last_seen_at = ?, ended_at = NULL, end_reason = NULL WHERE id = ?`,
      ).run(s.agent, s.repo, s.worktree, s.cwd, s.owner.host, s.owner.bootId, s.owner.pid, s.owner.startTime, now, s.id);
      return { session: this.sessionRow(s.id) as SessionRecord, created: false, reopened: before.endedAt !== null };
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

  updateSession(id: string, change: { worktree?: string; ticket?: string }): Promise<SessionRecord | null> {
    return this.immediate((now) => {
      const updated = this.stmt(`UPDATE sessions SET worktree = coalesce(?, worktree), ticket = coalesce(?, ticket), last_seen_at = ? WHERE id = ? AND ended_at IS NULL`)
        .run(change.worktree ?? null, change.ticket ?? null, now, id).changes;
      return updated ? this.sessionRow(id) : null;
    });
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
      const decision = decideClaims(sessionId, wanted, existing, holder, judge, now);
      if (!decision.ok) return decision.result;
      const { plan } = decision;
      const del = this.stmt(`DELETE FROM claims WHERE scope = ? AND kind = ? AND name = ?`);
      for (const t of plan.takeovers) del.run(t.held.scope, t.held.kind, t.held.name);
      const grants: Grant[] = [];
      for (const w of wanted) {
        const token = this.nextToken(w.scope, w.kind, w.name);
        del.run(w.scope, w.kind, w.name);
        this.stmt(`INSERT INTO claims (scope, kind, name, session_id, token, acquired_at) VALUES (?, ?, ?, ?, ?, ?)`).run(w.scope, w.kind, w.name, sessionId, token, now);
        grants.push(grantOf(w, token, plan, holder));
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
    return gates.tryAcquireGate(this.conn, name, holder, leaseMs, judge, stateOf);
  }

  peekGate(name: string): Promise<GateRecord | null> {
    return gates.peekGate(this.conn, name);
  }

  renewGate(name: string, token: number, leaseMs: number): Promise<boolean> {
    return gates.renewGate(this.conn, name, token, leaseMs);
  }

  releaseGate(name: string, token: number, stateOf: string | null, change: StateChange): Promise<void> {
    return gates.releaseGate(this.conn, name, token, stateOf, change);
  }

  readState(sessionId: string): Promise<StateRecord | null> {
    return this.read(() => gates.readState(this.conn, sessionId));
  }

  readStates(sessionIds: string[]): Promise<StateRecord[]> {
    return this.read(() => gates.readStates(this.conn, sessionIds));
  }

  dump(): Promise<StoreDump> {
    return dumps.dump(this.conn);
  }

  load(dump: StoreDump, options: { replace: boolean }): Promise<void> {
    return dumps.load(this.conn, dump, options.replace);
  }

  close(): Promise<void> {
    return this.read(() => this.conn.close());
  }
}
