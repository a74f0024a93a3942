import type { PgConn } from './conn.js';
import { toSession } from '../shared/rows.js';
import type { SessionRow } from '../shared/rows.js';
import type { DeadStore } from '../dead-types.js';

// The recorded dead as `lanes ls` asks for them (dead-types.ts), on PostgreSQL, as sqlite/dead.ts:
// counted in the partial index of the recorded dead, found through the claims' holders (a skip
// scan: PostgreSQL has no loose index scan of its own) and the index by host and worktree. Each
// answer is one statement, so one snapshot.

/** Open and recorded dead, as the partial indexes state it (so that the planner may use them). */
const DEAD = (s: string) => `${s}ended_at IS NULL AND ${s}dead_seen_at = ${s}last_seen_at`;

export function pgDead(conn: PgConn): DeadStore {
  const [S, C] = [conn.t('sessions'), conn.t('claims')];
  return {
    async deadWorktrees(host) {
      // One step of the index per worktree, then whether a dead session there holds no claim.
      const rows = await conn.query<{ wt: string }>(
        `WITH RECURSIVE w(wt) AS (
           SELECT min(worktree) FROM ${S} WHERE host = $1 AND worktree IS NOT NULL AND ${DEAD('')}
           UNION ALL SELECT (SELECT min(worktree) FROM ${S} WHERE host = $1 AND worktree > w.wt AND ${DEAD('')})
           FROM w WHERE w.wt IS NOT NULL)
         SELECT wt FROM w WHERE wt IS NOT NULL AND EXISTS (
           SELECT 1 FROM ${S} s WHERE s.host = $1 AND s.worktree = w.wt AND ${DEAD('s.')}
             AND NOT EXISTS (SELECT 1 FROM ${C} c WHERE c.session_id = s.id))
         ORDER BY wt COLLATE "C"`,
        [host],
      );
      return rows.map((r) => r.wt);
    },

    async deadAttention({ host, worktrees, limit, exclude }) {
      const [row] = await conn.query<{ dead: string; attention: string; first: SessionRow[] }>(
        `WITH RECURSIVE h(id) AS (SELECT min(session_id) FROM ${C}
             UNION ALL SELECT (SELECT min(session_id) FROM ${C} WHERE session_id > h.id) FROM h WHERE h.id IS NOT NULL),
           a AS (SELECT s.id FROM h JOIN ${S} s ON s.id = h.id WHERE ${DEAD('s.')}
             UNION SELECT s.id FROM ${S} s WHERE s.host = $1 AND s.worktree = ANY($2::text[]) AND ${DEAD('s.')}),
           x AS (SELECT id FROM a WHERE NOT (id = ANY($3::text[])))
         SELECT (SELECT count(*) FROM ${S} WHERE ${DEAD('')})
             - (SELECT count(*) FROM ${S} WHERE id = ANY($3::text[]) AND ${DEAD('')}) AS dead,
           (SELECT count(*) FROM x) AS attention,
           (SELECT coalesce(json_agg(f ORDER BY f.created_at, f.id COLLATE "C"), '[]'::json) FROM
             (SELECT s.* FROM x JOIN ${S} s ON s.id = x.id ORDER BY s.created_at, s.id COLLATE "C" LIMIT $4) f) AS first`,
        [host, worktrees, exclude, limit],
      );
      const r = row as { dead: string; attention: string; first: SessionRow[] };
      return { dead: Number(r.dead), attention: Number(r.attention), first: r.first.map(toSession) };
    },
  };
}
