import type { ResourceRef } from '../../core/resource.js';
import { claimant, decideClaims, grantOf } from '../shared/claim-decision.js';
import { conflictingRows } from './claim-reads.js';
import type { SqliteConn } from './conn.js';
import { insertStarted, sessionRow, ticketOf } from './sessions.js';
import { toClaim, unchanged } from '../shared/rows.js';
import { claimRankSql } from '../shared/claim-order.js';
import { granted, released as releasedEntry } from '../shared/journal-entries.js';
import { appendJournalRows } from './journal.js';
import type { ClaimRow } from '../shared/rows.js';
import type { ClaimRecord, ClaimResult, ClaimStore, Grant, OwnerJudge, SessionRecord } from '../types.js';

/** The distinct holders through the index by session, each found by one seek past the last. */
const HOLDERS = `WITH RECURSIVE h(id) AS (SELECT min(session_id) FROM claims
  UNION ALL SELECT (SELECT min(session_id) FROM claims WHERE session_id > h.id) FROM h WHERE h.id IS NOT NULL)
  SELECT id FROM h WHERE id IS NOT NULL`;

/** How recent a session's last sign of life may be for a claim not to rewrite it. */
const FRESH_MS = 1000;

function nextToken(conn: SqliteConn, scope: string, kind: string, name: string): number {
  const row = conn
    .stmt(
      `INSERT INTO fences (scope, kind, name, last_token) VALUES (?, ?, ?, 1)
     ON CONFLICT (scope, kind, name) DO UPDATE SET last_token = last_token + 1 RETURNING last_token`,
    )
    .get(scope, kind, name) as { last_token: number };
  return row.last_token;
}

/**
 * The claim decision and its writes, in the caller's IMMEDIATE transaction (a claim on its own, or
 * the ticket of a session being registered: `lanes start --ticket`, all or nothing).
 */
export function claimInTx(
  conn: SqliteConn,
  now: number,
  sessionId: string,
  wanted: ResourceRef[],
  judge: OwnerJudge,
): ClaimResult {
  const me = claimant(sessionRow(conn, sessionId), sessionId, conn.file);
  // Only the claims that could conflict, through the index (never every path claim of the scope).
  const existing = conflictingRows(conn, wanted);
  const sessions = new Map<string, SessionRecord | null>();
  const holder = (id: string) => {
    if (!sessions.has(id)) sessions.set(id, sessionRow(conn, id));
    return sessions.get(id) ?? null;
  };
  const decision = decideClaims(sessionId, wanted, existing, holder, judge, now);
  if (!decision.ok) return decision.result;
  const { plan } = decision;
  const del = conn.stmt(`DELETE FROM claims WHERE scope = ? AND kind = ? AND name = ?`);
  for (const t of plan.takeovers) del.run(t.held.scope, t.held.kind, t.held.name);
  const grants: Grant[] = [];
  for (const w of wanted) {
    const token = nextToken(conn, w.scope, w.kind, w.name);
    conn
      .stmt(
        `INSERT INTO claims (scope, kind, name, session_id, token, acquired_at) VALUES (?, ?, ?, ?, ?, ?)
           ON CONFLICT (scope, kind, name) DO UPDATE SET session_id = excluded.session_id, token = excluded.token, acquired_at = excluded.acquired_at`,
      )
      .run(w.scope, w.kind, w.name, sessionId, token, now);
    grants.push(grantOf(w, token, plan, holder));
  }
  // A claim shows its session alive. Not rewritten within a second of the last sign (the
  // heartbeat's own rule): an unchanged row is a page less to flush with the grant. A
  // session recorded dead is always refreshed, which lapses the record.
  if (me.lastSeenAt < now - FRESH_MS || me.deadWhy !== null)
    conn.stmt(`UPDATE sessions SET last_seen_at = ? WHERE id = ?`).run(now, sessionId);
  appendJournalRows(
    conn,
    now,
    grants.map((g) => granted(me, sessionId, g, wanted)),
  );
  return { ok: true, grants };
}

/** Claims and their fencing counters on one SQLite connection. */
export function sqliteClaims(conn: SqliteConn): ClaimStore {
  return {
    acquireClaims(sessionId, wanted, judge) {
      return conn.immediate((now): ClaimResult => claimInTx(conn, now, sessionId, wanted, judge), true);
    },

    async insertSessionClaiming(session, wanted, judge) {
      // A refusal rolls the registration back: thrown out of the transaction (whatever the store's
      // error mapping makes of it), and answered from what was kept here.
      let refused: Extract<ClaimResult, { ok: false }> | undefined;
      try {
        return await conn.immediate((now) => {
          const started = insertStarted(conn, session, now);
          const claim = claimInTx(conn, now, session.id, wanted, judge);
          if (claim.ok) return { ok: true as const, session: started, grants: claim.grants };
          refused = { ...claim, now };
          throw new Error('lanes: the session is not registered (its claim was refused)');
        }, true);
      } catch (e) {
        if (refused) return refused;
        throw e;
      }
    },

    releaseClaims(sessionId, refs, unchangedSince) {
      return conn.immediate((now) => {
        if (unchangedSince) {
          const s = sessionRow(conn, sessionId);
          if (s && !unchanged(s, unchangedSince)) return { released: [], notHeld: refs, changed: true as const };
        }
        const released: ClaimRecord[] = [];
        const notHeld: ResourceRef[] = [];
        for (const r of refs) {
          const row = conn
            .stmt(`DELETE FROM claims WHERE scope = ? AND kind = ? AND name = ? AND session_id = ? RETURNING *`)
            .get(r.scope, r.kind, r.name, sessionId) as ClaimRow | undefined;
          if (row) released.push(toClaim(row));
          else notHeld.push(r);
        }
        if (released.length) {
          const ticket = ticketOf(conn, sessionId);
          appendJournalRows(
            conn,
            now,
            released.map((c) => releasedEntry(sessionId, ticket, c)),
          );
        }
        return { released, notHeld };
      });
    },

    listClaims(filter = {}) {
      return conn.run(() => {
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
        if (filter.sessionIds) {
          where.push(`session_id IN (${filter.sessionIds.map(() => '?').join(',') || "''"})`);
          args.push(...filter.sessionIds);
        }
        // A row value: with one session, a range of the index by session (its entries carry the key).
        if (filter.after) {
          where.push('(scope, kind, name) > (?, ?, ?)');
          args.push(filter.after.scope, filter.after.kind, filter.after.name);
        }
        if (filter.limit !== undefined) args.push(filter.limit);
        const sql = `SELECT * FROM claims ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY scope, kind, name${filter.limit !== undefined ? ' LIMIT ?' : ''}`;
        return (conn.stmt(sql).all(...args) as ClaimRow[]).map(toClaim);
      });
    },

    firstClaims(sessionIds, perSession) {
      return conn.run(() => {
        // Read whole through the index by session and sorted: the order is not the key's.
        const first = conn.stmt(
          `SELECT * FROM claims WHERE session_id = ? ORDER BY ${claimRankSql('kind')}, scope, kind, name LIMIT ?`,
        );
        return [...new Set(sessionIds)].flatMap((id) => (first.all(id, perSession) as ClaimRow[]).map(toClaim));
      });
    },

    claimCounts(sessionIds) {
      return conn.run(() => {
        const count = conn.stmt('SELECT count(*) AS n FROM claims WHERE session_id = ?');
        const counts = new Map<string, number>();
        for (const id of new Set(sessionIds)) {
          const n = (count.get(id) as { n: number }).n;
          if (n > 0) counts.set(id, n);
        }
        return counts;
      });
    },

    claimHolders() {
      // One step of the index per holder (a skip scan), not one per claim.
      return conn.run(() => (conn.stmt(HOLDERS).all() as { id: string }[]).map((r) => r.id));
    },

    conflictingClaims(refs) {
      return conn.run(() => conflictingRows(conn, refs));
    },

    lastToken(ref) {
      return conn.run(() => {
        const row = conn
          .stmt(`SELECT last_token FROM fences WHERE scope = ? AND kind = ? AND name = ?`)
          .get(ref.scope, ref.kind, ref.name) as { last_token: number } | undefined;
        return row?.last_token ?? 0;
      });
    },
  };
}
