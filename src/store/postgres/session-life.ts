import { sessionDied } from '../shared/journal-entries.js';
import { toSession } from '../shared/rows.js';
import type { SessionRow } from '../shared/rows.js';
import type { SessionLifeKeys, SessionStore } from '../types.js';
import type { PgConn } from './conn.js';
import { appendPgJournal } from './journal.js';

// A session's life beyond start and end, on PostgreSQL (as sqlite/session-life.ts): its death
// recorded once with its journal entry, its [session] setup's state, the slug of its templated names.

export function pgSessionLife(conn: PgConn): Pick<SessionStore, SessionLifeKeys> {
  return {
    async recordDead(marks) {
      if (marks.length === 0) return [];
      // One statement for all of them: each row is recorded only if unchanged since it was judged;
      // each death journaled in the same transaction.
      return conn.tx(async (q, now) => {
        // Each death journaled (and notified) once: one that died before and was only refreshed
        // since is marked again, not journaled again (as sqlite/session-life.ts). The rows are
        // locked and their died read before the update, in the same statement.
        const rows = await q<SessionRow & { first_death: boolean }>(
          `WITH old AS (SELECT id, died IS NULL AS first_death FROM ${conn.t('sessions')} WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE)
           UPDATE ${conn.t('sessions')} AS s SET dead_seen_at = s.last_seen_at, dead_why = m.why,
             died = coalesce(s.died, 'owner gone: ' || m.why)
           FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::int[], $7::text[])
             AS m(id, seen, why, host, boot_id, pid, start_time), old
           WHERE s.id = m.id AND old.id = s.id AND s.ended_at IS NULL AND s.last_seen_at = m.seen AND s.host = m.host
             AND s.boot_id = m.boot_id AND s.pid = m.pid AND s.start_time = m.start_time
             AND s.dead_seen_at IS DISTINCT FROM s.last_seen_at
           RETURNING s.*, old.first_death`,
          [
            marks.map((m) => m.id),
            marks.map((m) => m.lastSeenAt),
            marks.map((m) => m.why),
            marks.map((m) => m.owner.host),
            marks.map((m) => m.owner.bootId),
            marks.map((m) => m.owner.pid),
            marks.map((m) => m.owner.startTime),
          ],
        );
        const why = new Map(marks.map((m) => [m.id, m.why]));
        const dead = rows.filter((r) => r.first_death).map(toSession);
        await appendPgJournal(
          conn,
          q,
          now,
          dead.map((d) => sessionDied(d, `owner gone: ${why.get(d.id) ?? ''}`)),
        );
        return dead.map((d) => d.id);
      });
    },

    recordDied(id, how, details) {
      return conn.tx(async (q, now) => {
        const rows = await q<SessionRow>(
          `UPDATE ${conn.t('sessions')} SET died = $1 WHERE id = $2 AND ended_at IS NULL AND died IS NULL RETURNING *`,
          [how, id],
        );
        const s = rows[0];
        if (s) await appendPgJournal(conn, q, now, [sessionDied(toSession(s), how, details)]);
        return s !== undefined;
      });
    },

    async setSetupState(id, from, to) {
      const rows = await conn.query(
        `UPDATE ${conn.t('sessions')} SET setup_state = $1 WHERE id = $2 AND setup_state IS NOT DISTINCT FROM $3 RETURNING id`,
        [to, id, from],
      );
      return rows.length > 0;
    },

    allocateEnvSlug(id, base) {
      return conn.tx(async (q) => {
        // One allocation at a time per store (two sessions of one ticket start at once only with --join).
        await q(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`lanes:envslug:${conn.target.schema}`]);
        const [mine] = await q<{ env_slug: string | null }>(
          `SELECT env_slug FROM ${conn.t('sessions')} WHERE id = $1`,
          [id],
        );
        if (mine?.env_slug) return mine.env_slug;
        const taken = new Set(
          (
            await q<{ env_slug: string }>(
              `SELECT env_slug FROM ${conn.t('sessions')}
               WHERE setup_state IN ('done', 'tearing', 'failed') AND (env_slug = $1 OR starts_with(env_slug, $2))`,
              [base, `${base}-`],
            )
          ).map((r) => r.env_slug),
        );
        let slug = base;
        for (let n = 2; taken.has(slug); n++) slug = `${base}-${n}`;
        await q(`UPDATE ${conn.t('sessions')} SET env_slug = $1 WHERE id = $2`, [slug, id]);
        return slug;
      });
    },

    passSetup(from, to) {
      return conn.tx(async (q) => {
        const [had] = await q<{ env_slug: string | null }>(
          `SELECT env_slug FROM ${conn.t('sessions')} WHERE id = $1 AND setup_state = 'done' FOR UPDATE`,
          [from],
        );
        if (!had) return false;
        await q(`UPDATE ${conn.t('sessions')} SET setup_state = 'passed' WHERE id = $1`, [from]);
        await q(`UPDATE ${conn.t('sessions')} SET env_slug = $1, setup_state = 'done' WHERE id = $2`, [
          had.env_slug,
          to,
        ]);
        return true;
      });
    },

    async teardownsDue() {
      const rows = await conn.query<SessionRow>(
        `SELECT * FROM ${conn.t('sessions')} WHERE setup_state IN ('done', 'tearing', 'failed') ORDER BY created_at, id`,
      );
      return rows.map(toSession);
    },
  };
}
