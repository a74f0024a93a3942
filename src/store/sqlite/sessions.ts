import { sessionExists } from '../shared/errors.js';
import { NOW } from './conn.js';
import type { SqliteConn } from './conn.js';
import { SESSION_COLUMNS, sessionValues, toClaim, toSession, unchanged } from '../shared/rows.js';
import type { ClaimRow, SessionRow } from '../shared/rows.js';
import { conversationBound, sessionEnded, sessionStarted } from '../shared/journal-entries.js';
import { appendJournalRows } from './journal.js';
import type { DeadStore, NewSession, SessionLifeKeys, SessionRecord, SessionStore } from '../types.js';
import { CLEARED_BY_ACTIVITY } from '../shared/attention.js';

/** A session as the current transaction sees it (claims reads holders with it too). */
export function sessionRow(conn: SqliteConn, id: string): SessionRecord | null {
  const row = conn.stmt(`SELECT * FROM sessions WHERE id = ?`).get(id) as SessionRow | undefined;
  return row ? toSession(row) : null;
}

/** A session's ticket alone (for journal entries written under the write lock). */
export function ticketOf(conn: SqliteConn, sessionId: string): string | null {
  const row = conn.stmt(`SELECT ticket FROM sessions WHERE id = ?`).get(sessionId) as
    { ticket: string | null } | undefined;
  return row?.ticket ?? null;
}

function insertRow(conn: SqliteConn, s: NewSession, now: number): void {
  conn
    .stmt(
      `INSERT INTO sessions (${SESSION_COLUMNS}, created_at, last_seen_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(...sessionValues(s), now, now);
}

/** Inserts a new session and its start entry in the caller's transaction (E_SESSION_EXISTS when the id is taken). */
export function insertStarted(conn: SqliteConn, s: NewSession, now: number): SessionRecord {
  const exists = conn.stmt(`SELECT 1 FROM sessions WHERE id = ?`).get(s.id);
  if (exists) throw sessionExists(s.id);
  insertRow(conn, s, now);
  const started = sessionRow(conn, s.id) as SessionRecord;
  appendJournalRows(conn, now, [sessionStarted(started)]);
  return started;
}

/** Sessions on one SQLite connection; every read-modify-write is one IMMEDIATE transaction. */
export function sqliteSessions(conn: SqliteConn): Omit<SessionStore, SessionLifeKeys | keyof DeadStore> {
  return {
    insertSession(s) {
      return conn.immediate((now) => insertStarted(conn, s, now));
    },

    attachSession(s) {
      return conn.immediate((now) => {
        const before = sessionRow(conn, s.id);
        if (!before) {
          insertRow(conn, s, now);
          const started = sessionRow(conn, s.id) as SessionRecord;
          appendJournalRows(conn, now, [sessionStarted(started)]);
          return { session: started, created: true, reopened: false };
        }
        // The ticket survives a re-attach (it was claimed for this session); the rest follows the new owner.
        conn
          .stmt(
            `UPDATE sessions SET agent = coalesce(?, agent), repo = ?, worktree = ?, cwd = ?, host = ?, boot_id = ?, pid = ?, start_time = ?,
             last_seen_at = ?, ended_at = NULL, end_reason = NULL, died = NULL WHERE id = ?`,
          )
          .run(
            s.agent,
            s.repo,
            s.worktree,
            s.cwd,
            s.owner.host,
            s.owner.bootId,
            s.owner.pid,
            s.owner.startTime,
            now,
            s.id,
          );
        const attached = sessionRow(conn, s.id) as SessionRecord;
        appendJournalRows(conn, now, [sessionStarted(attached, 'session.attach', before.endedAt !== null)]);
        return { session: attached, created: false, reopened: before.endedAt !== null };
      });
    },

    getSession(id) {
      return conn.run(() => sessionRow(conn, id));
    },

    bindConversation(id, b) {
      return conn.immediate((now) => {
        const before = sessionRow(conn, id);
        if (!before || before.endedAt !== null || before.conversation !== b.expected) return null;
        conn
          .stmt(
            `UPDATE sessions SET conversation = ?, conversation_pid = ?, agent = coalesce(agent, ?), last_seen_at = ? WHERE id = ?`,
          )
          .run(b.conversation, b.pid, b.agent, now, id);
        const bound = sessionRow(conn, id) as SessionRecord;
        if (before.conversation !== b.conversation)
          appendJournalRows(conn, now, [conversationBound(bound, b.conversation, before.conversation)]);
        return bound;
      });
    },

    sessionByConversation(conversation) {
      return conn.run(() => {
        const row = conn
          .stmt(
            `SELECT * FROM sessions INDEXED BY sessions_by_conversation WHERE conversation = ? AND ended_at IS NULL
             ORDER BY created_at DESC LIMIT 1`,
          )
          .get(conversation) as SessionRow | undefined;
        return row ? toSession(row) : null;
      });
    },

    listSessions(options) {
      // The open sessions not recorded dead come from their partial index, named: without table
      // statistics SQLite would pick sessions_by_end and walk every open session, dead ones too.
      const from = options.includeEnded
        ? 'sessions'
        : options.includeDead === false
          ? 'sessions INDEXED BY sessions_unproven WHERE ended_at IS NULL AND dead_seen_at IS NOT last_seen_at'
          : 'sessions WHERE ended_at IS NULL';
      return conn.run(() =>
        (conn.stmt(`SELECT * FROM ${from} ORDER BY created_at, id`).all() as SessionRow[]).map(toSession),
      );
    },

    sessionOutline({ includeEnded }) {
      const where = includeEnded ? '' : 'WHERE ended_at IS NULL';
      return conn.run(() =>
        (
          conn.stmt(`SELECT id, parent_id FROM sessions ${where} ORDER BY created_at, id`).all() as {
            id: string;
            parent_id: string | null;
          }[]
        ).map((r) => ({ id: r.id, parent: r.parent_id ?? null })),
      );
    },

    getSessions(ids) {
      // In chunks: SQLite binds at most 32,766 parameters per statement (the dashboard asks for
      // every open session's progress).
      return conn.run(() => {
        const rows: SessionRow[] = [];
        for (let i = 0; i < ids.length; i += 500) {
          const chunk = ids.slice(i, i + 500);
          const sql = `SELECT * FROM sessions WHERE id IN (${chunk.map(() => '?').join(',')})`;
          rows.push(...(conn.stmt(sql).all(...chunk) as SessionRow[]));
        }
        return rows
          .map(toSession)
          .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      });
    },

    deadSessions({ seenBefore, limit }) {
      return conn.run(() =>
        (
          conn
            .stmt(
              `SELECT * FROM sessions INDEXED BY sessions_recorded_dead
               WHERE ended_at IS NULL AND dead_seen_at = last_seen_at AND last_seen_at < ? ORDER BY last_seen_at LIMIT ?`,
            )
            .all(seenBefore, limit) as SessionRow[]
        ).map(toSession),
      );
    },

    async touchSession(id, freshForMs = 0, activity = false) {
      // Working again clears waiting and finished (a session showing either is not fresh).
      const shown = activity ? ` AND (attention IS NULL OR attention NOT IN ${CLEARED_BY_ACTIVITY})` : '';
      if (freshForMs > 0) {
        // A plain read first: a fresh lease needs neither the write lock nor a WAL frame.
        const fresh = await conn.run(
          () =>
            conn
              .stmt(
                `SELECT 1 AS fresh FROM sessions WHERE id = ? AND ended_at IS NULL AND last_seen_at > ${NOW} - ? AND dead_seen_at IS NOT last_seen_at${shown}`,
              )
              .get(id, freshForMs) as { fresh: number } | undefined,
        );
        if (fresh) return true;
      }
      const clear = activity
        ? `, attention = CASE WHEN attention IN ${CLEARED_BY_ACTIVITY} THEN NULL ELSE attention END`
        : '';
      return conn.immediate(
        (now) =>
          conn.stmt(`UPDATE sessions SET last_seen_at = ?${clear} WHERE id = ? AND ended_at IS NULL`).run(now, id)
            .changes > 0,
      );
    },

    setAttention(id, state, why, entry) {
      return conn.immediate((now) => {
        const changed =
          conn
            .stmt(
              `UPDATE sessions SET attention = ?, attention_at = ?, attention_why = ?
               WHERE id = ? AND ended_at IS NULL AND attention IS NOT ?`,
            )
            .run(state, state === null ? null : now, state === null ? null : why, id, state).changes > 0;
        if (changed && entry) appendJournalRows(conn, now, [entry]);
        return { changed, session: sessionRow(conn, id) };
      });
    },

    updateSession(id, change) {
      return conn.immediate((now) => {
        const updated = conn
          .stmt(
            `UPDATE sessions SET worktree = coalesce(?, worktree), ticket = coalesce(?, ticket), terminal = coalesce(?, terminal), last_seen_at = ? WHERE id = ? AND ended_at IS NULL`,
          )
          .run(change.worktree ?? null, change.ticket ?? null, change.terminal ?? null, now, id).changes;
        return updated ? sessionRow(conn, id) : null;
      });
    },

    endSession(id, reason, unchangedSince) {
      return conn.immediate((now) => {
        const before = sessionRow(conn, id);
        if (!before) return null;
        if (unchangedSince && !unchanged(before, unchangedSince))
          return { session: before, released: [], changed: true as const };
        const released = (
          conn.stmt(`SELECT * FROM claims WHERE session_id = ? ORDER BY scope, kind, name`).all(id) as ClaimRow[]
        ).map(toClaim);
        conn.stmt(`DELETE FROM claims WHERE session_id = ?`).run(id);
        if (before.endedAt === null) {
          conn.stmt(`UPDATE sessions SET ended_at = ?, end_reason = ? WHERE id = ?`).run(now, reason, id);
          appendJournalRows(conn, now, [sessionEnded(before, reason, released)]);
        }
        return { session: sessionRow(conn, id) as SessionRecord, released };
      });
    },
  };
}
