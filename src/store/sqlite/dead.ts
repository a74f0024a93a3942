import type { SqliteConn } from './conn.js';
import { toSession } from '../shared/rows.js';
import type { SessionRow } from '../shared/rows.js';
import type { DeadStore } from '../dead-types.js';

// The recorded dead as `lanes ls` asks for them (dead-types.ts), on SQLite: counted in the partial
// index of the recorded dead, and found through the claims' holders (a skip scan) and the index of
// the recorded dead by host and worktree, so a listing reads what it shows, not every dead session.

/** Open and recorded dead, as the partial indexes state it (so that the planner may use them). */
const DEAD = (s: string) => `${s}ended_at IS NULL AND ${s}dead_seen_at = ${s}last_seen_at`;
const BY_WORKTREE = 'sessions INDEXED BY sessions_dead_by_worktree';

// One step of the index per worktree (a skip scan), then whether a dead session there holds no
// claim (the first such one answers). Plain ? parameters, bound in order: Node 22.13's node:sqlite
// refuses a numbered one (?1) used twice ("column index out of range").
const WORKTREES = `WITH RECURSIVE w(wt) AS (
    SELECT min(worktree) FROM ${BY_WORKTREE} WHERE host = ? AND worktree IS NOT NULL AND ${DEAD('')}
    UNION ALL SELECT (SELECT min(worktree) FROM ${BY_WORKTREE} WHERE host = ? AND worktree > w.wt AND ${DEAD('')})
    FROM w WHERE w.wt IS NOT NULL)
  SELECT wt FROM w WHERE wt IS NOT NULL AND EXISTS (
    SELECT 1 FROM ${BY_WORKTREE.replace('sessions', 'sessions s')} WHERE s.host = ? AND s.worktree = w.wt AND ${DEAD('s.')}
      AND NOT EXISTS (SELECT 1 FROM claims c WHERE c.session_id = s.id))`;

// Those needing attention: the dead among the claims' holders (one index step per holder), and the
// dead in the worktrees named; less the excluded. Without table statistics SQLite would walk every
// dead session of the host for a join on json_each, or the sessions by end for an IN list: the
// lists are read first (CROSS JOIN keeps that order) and the index is probed with each entry.
const ATTENTION = `WITH RECURSIVE h(id) AS (SELECT min(session_id) FROM claims
    UNION ALL SELECT (SELECT min(session_id) FROM claims WHERE session_id > h.id) FROM h WHERE h.id IS NOT NULL),
  a(id) AS (SELECT s.id FROM h CROSS JOIN sessions s ON s.id = h.id WHERE ${DEAD('s.')}
    UNION SELECT s.id FROM ${BY_WORKTREE.replace('sessions', 'sessions s')}
      WHERE s.host = ? AND s.worktree IN (SELECT value FROM json_each(?)) AND ${DEAD('s.')}),
  x(id) AS (SELECT id FROM a WHERE id NOT IN (SELECT value FROM json_each(?)))`;

export function sqliteDead(conn: SqliteConn): DeadStore {
  return {
    deadWorktrees(host) {
      return conn.run(() => (conn.stmt(WORKTREES).all(host, host, host) as { wt: string }[]).map((r) => r.wt));
    },

    deadAttention({ host, worktrees, limit, exclude }) {
      const [wts, ex] = [JSON.stringify(worktrees), JSON.stringify(exclude)];
      return conn.run(() => {
        // One read transaction: the counts and the rows from one snapshot (a session ended or
        // refreshed meanwhile is in all of them or in none).
        conn.stmt('BEGIN').run();
        try {
          const dead = (
            conn
              .stmt(
                `SELECT (SELECT count(*) FROM sessions INDEXED BY sessions_recorded_dead WHERE ${DEAD('')})
                 - (SELECT count(*) FROM json_each(?) e CROSS JOIN sessions s ON s.id = e.value WHERE ${DEAD('s.')}) AS n`,
              )
              .get(ex) as { n: number }
          ).n;
          const attention = (conn.stmt(`${ATTENTION} SELECT count(*) AS n FROM x`).get(host, wts, ex) as { n: number })
            .n;
          const first = conn
            .stmt(
              `${ATTENTION} SELECT s.* FROM x CROSS JOIN sessions s ON s.id = x.id ORDER BY s.created_at, s.id LIMIT ?`,
            )
            .all(host, wts, ex, limit) as SessionRow[];
          return { dead, attention, first: first.map(toSession) };
        } finally {
          conn.stmt('COMMIT').run();
        }
      });
    },
  };
}
