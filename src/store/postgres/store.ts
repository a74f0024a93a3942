import { LanesError } from '../../core/errors.js';
import { decideClaims, grantOf } from '../shared/claim-decision.js';
import type { ResourceRef } from '../../core/resource.js';
import { PgConn } from './conn.js';
import type { PgOptions, Q } from './conn.js';
import * as gates from './gates.js';
import * as dumps from './dump.js';
import { PG_NOW } from './schema.js';
import { toClaim, toSession } from '../shared/rows.js';
import type { ClaimRow, SessionRow } from '../shared/rows.js';
import type {
  ClaimRecord, ClaimResult, GateAttempt, GateHolder, GateRecord, Grant, NewSession, OwnerJudge,
  SessionRecord, StateChange, StateRecord, Store, StoreDump, StoreInfo,
} from '../types.js';

export type { PgOptions };

/**
 * The team store on PostgreSQL (same contract as SQLite). Every call is one transaction; times
 * come from the server's clock; claim operations serialize per scope with transaction-level
 * advisory locks; a session's row is locked (FOR UPDATE) while it is ended, re-attached or claims,
 * so a session can never be granted a claim after it ended.
 */
export class PostgresStore implements Store {
  readonly info: StoreInfo;

  private constructor(private readonly conn: PgConn) {
    this.info = { backend: 'postgres', location: conn.target.display, schemaVersion: conn.schemaVersion };
  }

  static async open(url: string, options: PgOptions = {}): Promise<PostgresStore> {
    return new PostgresStore(await PgConn.open(url, options));
  }

  private t(table: string): string {
    return this.conn.t(table);
  }

  private async session(q: Q, id: string, lock = false): Promise<SessionRecord | null> {
    const [row] = await q<SessionRow>(`SELECT * FROM ${this.t('sessions')} WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [id]);
    return row ? toSession(row) : null;
  }

  async now(): Promise<number> {
    const [row] = await this.conn.query<{ now: number }>(`SELECT ${PG_NOW} AS now`);
    return Number(row?.now);
  }

  insertSession(s: NewSession): Promise<SessionRecord> {
    return this.conn.tx(async (q, now) => {
      const inserted = await q(
        `INSERT INTO ${this.t('sessions')} (id, label, agent, ticket, repo, worktree, cwd, host, boot_id, pid, start_time, command, created_at, last_seen_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13) ON CONFLICT (id) DO NOTHING RETURNING id`,
        [s.id, s.label, s.agent, s.ticket, s.repo, s.worktree, s.cwd, s.owner.host, s.owner.bootId, s.owner.pid, s.owner.startTime, s.command, now],
      );
      if (inserted.length === 0) throw new LanesError('E_USAGE', `a session with id ${s.id} already exists`, { hint: 'choose another id, or end the old session with `lanes end ' + s.id + '`' });
      return (await this.session(q, s.id)) as SessionRecord;
    });
  }

  attachSession(s: NewSession): Promise<{ session: SessionRecord; created: boolean; reopened: boolean }> {
    return this.conn.tx(async (q, now) => {
      const inserted = await q(
        `INSERT INTO ${this.t('sessions')} (id, label, agent, ticket, repo, worktree, cwd, host, boot_id, pid, start_time, command, created_at, last_seen_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13) ON CONFLICT (id) DO NOTHING RETURNING id`,
        [s.id, s.label, s.agent, s.ticket, s.repo, s.worktree, s.cwd, s.owner.host, s.owner.bootId, s.owner.pid, s.owner.startTime, s.command, now],
      );
      if (inserted.length > 0) return { session: (await this.session(q, s.id)) as SessionRecord, created: true, reopened: false };
      const before = (await this.session(q, s.id, true)) as SessionRecord;
      await q(
        `UPDATE ${this.t('sessions')} SET agent = coalesce($1, agent), repo = $2, worktree = $3, cwd = $4, host = $5, boot_id = $6, pid = $7, start_time = $8,
           last_seen_at = $9, ended_at = NULL, end_reason = NULL WHERE id = $10`,
        [s.agent, s.repo, s.worktree, s.cwd, s.owner.host, s.owner.bootId, s.owner.pid, s.owner.startTime, now, s.id],
      );
      return { session: (await this.session(q, s.id)) as SessionRecord, created: false, reopened: before.endedAt !== null };
    });
  }

  async getSession(id: string): Promise<SessionRecord | null> {
    const [row] = await this.conn.query<SessionRow>(`SELECT * FROM ${this.t('sessions')} WHERE id = $1`, [id]);
    return row ? toSession(row) : null;
  }

  async listSessions(options: { includeEnded: boolean }): Promise<SessionRecord[]> {
    const rows = await this.conn.query<SessionRow>(`SELECT * FROM ${this.t('sessions')} ${options.includeEnded ? '' : 'WHERE ended_at IS NULL'} ORDER BY created_at, id`);
    return rows.map(toSession);
  }

  async touchSession(id: string): Promise<boolean> {
    const rows = await this.conn.query(`UPDATE ${this.t('sessions')} SET last_seen_at = ${PG_NOW} WHERE id = $1 AND ended_at IS NULL RETURNING id`, [id]);
    return rows.length > 0;
  }

  updateSession(id: string, change: { worktree?: string; ticket?: string }): Promise<SessionRecord | null> {
    return this.conn.tx(async (q, now) => {
      const rows = await q(`UPDATE ${this.t('sessions')} SET worktree = coalesce($1, worktree), ticket = coalesce($2, ticket), last_seen_at = $3 WHERE id = $4 AND ended_at IS NULL RETURNING id`,
        [change.worktree ?? null, change.ticket ?? null, now, id]);
      return rows.length ? this.session(q, id) : null;
    });
  }

  endSession(id: string, reason: string): Promise<{ session: SessionRecord; released: ClaimRecord[] } | null> {
    return this.conn.tx(async (q, now) => {
      const before = await this.session(q, id, true);
      if (!before) return null;
      const released = (await q<ClaimRow>(`DELETE FROM ${this.t('claims')} WHERE session_id = $1 RETURNING *`, [id])).map(toClaim)
        .sort((a, b) => (a.scope + a.kind + a.name < b.scope + b.kind + b.name ? -1 : 1));
      if (before.endedAt === null) await q(`UPDATE ${this.t('sessions')} SET ended_at = $1, end_reason = $2 WHERE id = $3`, [now, reason, id]);
      return { session: (await this.session(q, id)) as SessionRecord, released };
    });
  }

  acquireClaims(sessionId: string, wanted: ResourceRef[], judge: OwnerJudge): Promise<ClaimResult> {
    return this.conn.tx(async (q, now): Promise<ClaimResult> => {
      // Requests that could conflict take turns: one lock per named resource, and one per scope for
      // path claims (a path conflicts with the paths inside it). Taken in sorted order in one
      // statement, so two requests never deadlock.
      const keys = [...new Set(wanted.map((w) => `lanes:claims:${this.conn.target.schema}:${w.scope}:${w.kind}${w.kind === 'path' ? '' : `:${w.name}`}`))].sort();
      await q(`SELECT pg_advisory_xact_lock(hashtextextended(k, 0)) FROM (SELECT unnest($1::text[]) AS k ORDER BY 1) AS keys`, [keys]);
      const me = await this.session(q, sessionId, true);
      if (!me) throw new LanesError('E_UNKNOWN_SESSION', `session ${sessionId} is not in the store ${this.info.location}`, { hint: 'start one with `lanes start`' });
      if (me.endedAt !== null) throw new LanesError('E_SESSION_ENDED', `session ${sessionId} has ended (${me.endReason ?? 'no reason'})`, { hint: 'start a new session with `lanes start`' });
      const existing: ClaimRecord[] = [];
      const seen = new Set<string>();
      for (const w of wanted) {
        const key = `${w.scope}\0${w.kind}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const rows = w.kind === 'path'
          ? await q<ClaimRow>(`SELECT * FROM ${this.t('claims')} WHERE scope = $1 AND kind = 'path'`, [w.scope])
          : await q<ClaimRow>(`SELECT * FROM ${this.t('claims')} WHERE scope = $1 AND kind = $2 AND name = ANY($3)`, [w.scope, w.kind, wanted.map((x) => x.name)]);
        existing.push(...rows.map(toClaim));
      }
      const holders = new Map<string, SessionRecord | null>();
      for (const c of existing) if (!holders.has(c.sessionId)) holders.set(c.sessionId, c.sessionId === sessionId ? me : await this.session(q, c.sessionId));
      const holder = (id: string) => holders.get(id) ?? null;
      const decision = decideClaims(sessionId, wanted, existing, holder, judge, now);
      if (!decision.ok) return decision.result;
      const { plan } = decision;
      for (const t of plan.takeovers) await q(`DELETE FROM ${this.t('claims')} WHERE scope = $1 AND kind = $2 AND name = $3`, [t.held.scope, t.held.kind, t.held.name]);
      const grants: Grant[] = [];
      for (const w of wanted) {
        // The next token and the claim in one statement of the same transaction.
        const [row] = await q<{ token: number }>(
          `WITH f AS (INSERT INTO ${this.t('fences')} (scope, kind, name, last_token) VALUES ($1, $2, $3, 1)
             ON CONFLICT (scope, kind, name) DO UPDATE SET last_token = ${this.t('fences')}.last_token + 1 RETURNING last_token)
           INSERT INTO ${this.t('claims')} (scope, kind, name, session_id, token, acquired_at) SELECT $1, $2, $3, $4, last_token, $5 FROM f
           ON CONFLICT (scope, kind, name) DO UPDATE SET session_id = excluded.session_id, token = excluded.token, acquired_at = excluded.acquired_at
           RETURNING token`, [w.scope, w.kind, w.name, sessionId, now]);
        const token = Number(row?.token);
        grants.push(grantOf(w, token, plan, holder));
      }
      await q(`UPDATE ${this.t('sessions')} SET last_seen_at = $1 WHERE id = $2`, [now, sessionId]);
      return { ok: true, grants };
    });
  }

  releaseClaims(sessionId: string, refs: ResourceRef[]): Promise<{ released: ClaimRecord[]; notHeld: ResourceRef[] }> {
    return this.conn.tx(async (q) => {
      const released: ClaimRecord[] = [];
      const notHeld: ResourceRef[] = [];
      for (const r of refs) {
        const [row] = await q<ClaimRow>(`DELETE FROM ${this.t('claims')} WHERE scope = $1 AND kind = $2 AND name = $3 AND session_id = $4 RETURNING *`, [r.scope, r.kind, r.name, sessionId]);
        if (row) released.push(toClaim(row));
        else notHeld.push(r);
      }
      return { released, notHeld };
    });
  }

  async listClaims(filter: { scopes?: string[]; sessionId?: string } = {}): Promise<ClaimRecord[]> {
    const where: string[] = [];
    const args: unknown[] = [];
    if (filter.scopes) {
      args.push(filter.scopes);
      where.push(`scope = ANY($${args.length})`);
    }
    if (filter.sessionId !== undefined) {
      args.push(filter.sessionId);
      where.push(`session_id = $${args.length}`);
    }
    // COLLATE "C": the same byte order as SQLite's.
    const rows = await this.conn.query<ClaimRow>(`SELECT * FROM ${this.t('claims')} ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY scope COLLATE "C", kind COLLATE "C", name COLLATE "C"`, args);
    return rows.map(toClaim);
  }

  async lastToken(ref: ResourceRef): Promise<number> {
    const [row] = await this.conn.query<{ last_token: number }>(`SELECT last_token FROM ${this.t('fences')} WHERE scope = $1 AND kind = $2 AND name = $3`, [ref.scope, ref.kind, ref.name]);
    return row ? Number(row.last_token) : 0;
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
    return gates.readState(this.conn, sessionId);
  }

  readStates(sessionIds: string[]): Promise<StateRecord[]> {
    return gates.readStates(this.conn, sessionIds);
  }

  dump(): Promise<StoreDump> {
    return dumps.dump(this.conn);
  }

  load(dump: StoreDump, options: { replace: boolean }): Promise<void> {
    return dumps.load(this.conn, dump, options.replace);
  }

  close(): Promise<void> {
    return this.conn.close();
  }
}
