import { sessionDied } from '../shared/journal-entries.js';
import { toSession } from '../shared/rows.js';
import type { SessionRow } from '../shared/rows.js';
import type { SessionLifeKeys, SessionRecord, SessionStore } from '../types.js';
import type { SqliteConn } from './conn.js';
import { appendJournalRows } from './journal.js';
import { sessionRow } from './sessions.js';

// A session's life beyond start and end, on SQLite: its death recorded once with its journal entry
// (a judge's proof, or lanes' wrapper seeing its agent killed), its [session] setup's state, and
// the slug of its templated names, unique among the sessions whose teardown is due.

export function sqliteSessionLife(conn: SqliteConn): Pick<SessionStore, SessionLifeKeys> {
  return {
    recordDead(marks) {
      if (marks.length === 0) return Promise.resolve([]);
      return conn.immediate((now) => {
        const mark = conn.stmt(
          `UPDATE sessions SET dead_seen_at = last_seen_at, dead_why = ?, died = coalesce(died, ?)
           WHERE id = ? AND ended_at IS NULL AND last_seen_at = ? AND host = ? AND boot_id = ? AND pid = ? AND start_time = ?
             AND dead_seen_at IS NOT last_seen_at`,
        );
        // Each death journaled (and notified) once: a session that died before and was only
        // refreshed since (a lanes call of a process its dead owner left behind) is marked again,
        // not journaled again; one attached anew (a new owner: died reset) dies anew.
        const diedBefore = conn.stmt(`SELECT died IS NOT NULL AS d FROM sessions WHERE id = ?`);
        const recorded = marks.filter((m) => {
          const first = (diedBefore.get(m.id) as { d: number } | undefined)?.d === 0;
          const marked =
            mark.run(
              m.why,
              `owner gone: ${m.why}`,
              m.id,
              m.lastSeenAt,
              m.owner.host,
              m.owner.bootId,
              m.owner.pid,
              m.owner.startTime,
            ).changes > 0;
          return marked && first;
        });
        appendJournalRows(
          conn,
          now,
          recorded.map((m) => sessionDied(sessionRow(conn, m.id) as SessionRecord, `owner gone: ${m.why}`)),
        );
        return recorded.map((m) => m.id);
      });
    },

    recordDied(id, how, details) {
      return conn.immediate((now) => {
        const changed =
          conn.stmt(`UPDATE sessions SET died = ? WHERE id = ? AND ended_at IS NULL AND died IS NULL`).run(how, id)
            .changes > 0;
        if (changed) appendJournalRows(conn, now, [sessionDied(sessionRow(conn, id) as SessionRecord, how, details)]);
        return changed;
      });
    },

    setSetupState(id, from, to) {
      return conn.immediate(
        () =>
          conn.stmt(`UPDATE sessions SET setup_state = ? WHERE id = ? AND setup_state IS ?`).run(to, id, from).changes >
          0,
      );
    },

    allocateEnvSlug(id, base) {
      return conn.immediate(() => {
        const mine = conn.stmt(`SELECT env_slug FROM sessions WHERE id = ?`).get(id) as
          { env_slug: string | null } | undefined;
        if (mine?.env_slug) return mine.env_slug;
        const taken = new Set(
          (
            conn
              .stmt(
                `SELECT env_slug FROM sessions INDEXED BY sessions_teardown_due
                 WHERE setup_state IN ('done', 'tearing', 'failed') AND (env_slug = ? OR env_slug LIKE ? ESCAPE '\\')`,
              )
              .all(base, `${base.replace(/[\\%_]/g, '\\$&')}-%`) as { env_slug: string }[]
          ).map((r) => r.env_slug),
        );
        let slug = base;
        for (let n = 2; taken.has(slug); n++) slug = `${base}-${n}`;
        conn.stmt(`UPDATE sessions SET env_slug = ? WHERE id = ?`).run(slug, id);
        return slug;
      });
    },

    passSetup(from, to) {
      return conn.immediate(() => {
        const had = conn.stmt(`SELECT env_slug FROM sessions WHERE id = ? AND setup_state = 'done'`).get(from) as
          { env_slug: string | null } | undefined;
        if (!had) return false;
        conn.stmt(`UPDATE sessions SET setup_state = 'passed' WHERE id = ?`).run(from);
        conn.stmt(`UPDATE sessions SET env_slug = ?, setup_state = 'done' WHERE id = ?`).run(had.env_slug, to);
        return true;
      });
    },

    teardownsDue() {
      return conn.run(() =>
        (
          conn
            .stmt(`SELECT * FROM sessions WHERE setup_state IN ('done', 'tearing', 'failed') ORDER BY created_at, id`)
            .all() as SessionRow[]
        ).map(toSession),
      );
    },
  };
}
