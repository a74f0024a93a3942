import { sessionExists } from '../shared/errors.js';
import type { PgConn, Q } from './conn.js';
import { PG_NOW } from './schema.js';
import { SESSION_COLUMNS, sessionValues, toClaim, toSession, unchanged } from '../shared/rows.js';
import type { ClaimRow, SessionRow } from '../shared/rows.js';
import { conversationBound, sessionEnded, sessionStarted } from '../shared/journal-entries.js';
import { CLEARED_BY_ACTIVITY } from '../shared/attention.js';
import { appendPgJournal } from './journal.js';
import type { DeadStore, NewSession, SessionLifeKeys, SessionRecord, SessionStore } from '../types.js';

/** A session read in the caller's transaction; `lock` holds its row (FOR UPDATE) until it commits. */
export async function sessionIn(conn: PgConn, q: Q, id: string, lock = false): Promise<SessionRecord | null> {
  const [row] = await q<SessionRow>(`SELECT * FROM ${conn.t('sessions')} WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [
    id,
  ]);
  return row ? toSession(row) : null;
}

/** Inserts the session unless its id exists; true when inserted. */
async function insertNew(conn: PgConn, q: Q, s: NewSession, now: number): Promise<boolean> {
  const inserted = await q(
    `INSERT INTO ${conn.t('sessions')} (${SESSION_COLUMNS}, created_at, last_seen_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $15) ON CONFLICT (id) DO NOTHING RETURNING id`,
    [...sessionValues(s), now],
  );
  return inserted.length > 0;
}

/** Inserts a new session and its start entry in the caller's transaction (E_SESSION_EXISTS when the id is taken). */
export async function insertStarted(conn: PgConn, q: Q, s: NewSession, now: number): Promise<SessionRecord> {
  if (!(await insertNew(conn, q, s, now))) throw sessionExists(s.id);
  const started = (await sessionIn(conn, q, s.id)) as SessionRecord;
  await appendPgJournal(conn, q, now, [sessionStarted(started)]);
  return started;
}

/**
 * Sessions on PostgreSQL. A session's row is locked (FOR UPDATE) while it is ended or re-attached,
 * as while it claims (claims.ts), so a session can never be granted a claim after it ended.
 */
export function pgSessions(conn: PgConn): Omit<SessionStore, SessionLifeKeys | keyof DeadStore> {
  return {
    insertSession(s) {
      return conn.tx((q, now) => insertStarted(conn, q, s, now));
    },

    attachSession(s) {
      return conn.tx(async (q, now) => {
        if (await insertNew(conn, q, s, now)) {
          const started = (await sessionIn(conn, q, s.id)) as SessionRecord;
          await appendPgJournal(conn, q, now, [sessionStarted(started)]);
          return { session: started, created: true, reopened: false };
        }
        const before = (await sessionIn(conn, q, s.id, true)) as SessionRecord;
        // The ticket survives a re-attach (it was claimed for this session); the rest follows the new owner.
        await q(
          `UPDATE ${conn.t('sessions')} SET agent = coalesce($1, agent), repo = $2, worktree = $3, cwd = $4, host = $5, boot_id = $6, pid = $7, start_time = $8,
             last_seen_at = $9, ended_at = NULL, end_reason = NULL, died = NULL WHERE id = $10`,
          [s.agent, s.repo, s.worktree, s.cwd, s.owner.host, s.owner.bootId, s.owner.pid, s.owner.startTime, now, s.id],
        );
        const attached = (await sessionIn(conn, q, s.id)) as SessionRecord;
        await appendPgJournal(conn, q, now, [sessionStarted(attached, 'session.attach', before.endedAt !== null)]);
        return { session: attached, created: false, reopened: before.endedAt !== null };
      });
    },

    async getSession(id) {
      const [row] = await conn.query<SessionRow>(`SELECT * FROM ${conn.t('sessions')} WHERE id = $1`, [id]);
      return row ? toSession(row) : null;
    },

    bindConversation(id, b) {
      return conn.tx(async (q, now) => {
        const before = await sessionIn(conn, q, id, true);
        if (!before || before.endedAt !== null || before.conversation !== b.expected) return null;
        await q(
          `UPDATE ${conn.t('sessions')} SET conversation = $1, conversation_pid = $2, agent = coalesce(agent, $3), last_seen_at = $4 WHERE id = $5`,
          [b.conversation, b.pid, b.agent, now, id],
        );
        const bound = (await sessionIn(conn, q, id)) as SessionRecord;
        if (before.conversation !== b.conversation)
          await appendPgJournal(conn, q, now, [conversationBound(bound, b.conversation, before.conversation)]);
        return bound;
      });
    },

    async sessionByConversation(conversation) {
      const [row] = await conn.query<SessionRow>(
        `SELECT * FROM ${conn.t('sessions')} WHERE conversation = $1 AND ended_at IS NULL
         ORDER BY created_at DESC LIMIT 1`,
        [conversation],
      );
      return row ? toSession(row) : null;
    },

    async listSessions(options) {
      // The terms of the partial index sessions_unproven, as written there, so the planner can use it.
      const where = options.includeEnded
        ? ''
        : options.includeDead === false
          ? 'WHERE ended_at IS NULL AND dead_seen_at IS DISTINCT FROM last_seen_at'
          : 'WHERE ended_at IS NULL';
      const rows = await conn.query<SessionRow>(`SELECT * FROM ${conn.t('sessions')} ${where} ORDER BY created_at, id`);
      return rows.map(toSession);
    },

    async sessionOutline({ includeEnded }) {
      const where = includeEnded ? '' : 'WHERE ended_at IS NULL';
      const rows = await conn.query<{ id: string; parent_id: string | null }>(
        `SELECT id, parent_id FROM ${conn.t('sessions')} ${where} ORDER BY created_at, id`,
      );
      return rows.map((r) => ({ id: r.id, parent: r.parent_id ?? null }));
    },

    async getSessions(ids) {
      if (ids.length === 0) return [];
      const rows = await conn.query<SessionRow>(
        `SELECT * FROM ${conn.t('sessions')} WHERE id = ANY($1) ORDER BY created_at, id`,
        [ids],
      );
      return rows.map(toSession);
    },

    async deadSessions({ seenBefore, limit }) {
      const rows = await conn.query<SessionRow>(
        `SELECT * FROM ${conn.t('sessions')}
         WHERE ended_at IS NULL AND dead_seen_at = last_seen_at AND last_seen_at < $1 ORDER BY last_seen_at LIMIT $2`,
        [seenBefore, limit],
      );
      return rows.map(toSession);
    },

    async touchSession(id, freshForMs = 0, activity = false) {
      // One round trip: the open session read, and updated only when its lease is older than
      // freshForMs, it is recorded dead, or (activity) it shows waiting or finished, which working
      // again clears (a fresh lease writes no row version).
      const sessions = conn.t('sessions');
      const shown = activity ? ` OR s.attention IN ${CLEARED_BY_ACTIVITY}` : '';
      const clear = activity
        ? `, attention = CASE WHEN t.attention IN ${CLEARED_BY_ACTIVITY} THEN NULL ELSE t.attention END`
        : '';
      const rows = await conn.query(
        `WITH s AS (SELECT id, last_seen_at, dead_seen_at, attention FROM ${sessions} WHERE id = $1 AND ended_at IS NULL),
           u AS (UPDATE ${sessions} t SET last_seen_at = ${PG_NOW}${clear} FROM s
                 WHERE t.id = s.id AND t.ended_at IS NULL
                   AND (s.last_seen_at <= ${PG_NOW} - $2 OR s.dead_seen_at IS NOT DISTINCT FROM s.last_seen_at${shown})
                 RETURNING t.id)
         SELECT (SELECT count(*) FROM s) + (SELECT count(*) FROM u) AS n`,
        // A whole number of ms: a fraction (a lease not divisible by 12) fails as a bigint.
        [id, Math.floor(freshForMs)],
      );
      return Number((rows[0] as { n: string | number }).n) > 0;
    },

    setAttention(id, state, why, entry) {
      return conn.tx(async (q, now) => {
        const changed = await q(
          `UPDATE ${conn.t('sessions')} SET attention = $1, attention_at = $2, attention_why = $3
           WHERE id = $4 AND ended_at IS NULL AND attention IS DISTINCT FROM $1 RETURNING id`,
          [state, state === null ? null : now, state === null ? null : why, id],
        );
        if (changed.length > 0 && entry) await appendPgJournal(conn, q, now, [entry]);
        return { changed: changed.length > 0, session: await sessionIn(conn, q, id) };
      });
    },

    updateSession(id, change) {
      return conn.tx(async (q, now) => {
        const rows = await q(
          `UPDATE ${conn.t('sessions')} SET worktree = coalesce($1, worktree), ticket = coalesce($2, ticket), terminal = coalesce($5, terminal), last_seen_at = $3 WHERE id = $4 AND ended_at IS NULL RETURNING id`,
          [change.worktree ?? null, change.ticket ?? null, now, id, change.terminal ?? null],
        );
        return rows.length ? sessionIn(conn, q, id) : null;
      });
    },

    endSession(id, reason, unchangedSince) {
      return conn.tx(async (q, now) => {
        const before = await sessionIn(conn, q, id, true);
        if (!before) return null;
        if (unchangedSince && !unchanged(before, unchangedSince))
          return { session: before, released: [], changed: true as const };
        const released = (await q<ClaimRow>(`DELETE FROM ${conn.t('claims')} WHERE session_id = $1 RETURNING *`, [id]))
          .map(toClaim)
          .sort((a, b) => (a.scope + a.kind + a.name < b.scope + b.kind + b.name ? -1 : 1));
        if (before.endedAt === null) {
          await q(`UPDATE ${conn.t('sessions')} SET ended_at = $1, end_reason = $2 WHERE id = $3`, [now, reason, id]);
          await appendPgJournal(conn, q, now, [sessionEnded(before, reason, released)]);
        }
        return { session: (await sessionIn(conn, q, id)) as SessionRecord, released };
      });
    },
  };
}
