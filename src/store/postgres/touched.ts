import type { TouchedStore } from '../touched-types.js';
import { touchedKey } from '../touched-types.js';
import type { PgConn } from './conn.js';

/** The touched-paths index on PostgreSQL (touched-types.ts). */
export function pgTouched(conn: PgConn): TouchedStore {
  return {
    async indexTouched(sessionId, repo, paths, replace) {
      await conn.tx(async (q) => {
        if (replace) await q(`DELETE FROM ${conn.t('touched')} WHERE session_id = $1`, [sessionId]);
        if (paths.length === 0) return;
        // One statement for the whole list (unnest), whatever its length.
        await q(
          `INSERT INTO ${conn.t('touched')} (repo, key, session_id, path)
           SELECT $1, k, $2, p FROM unnest($3::text[], $4::text[]) AS u(k, p) ON CONFLICT DO NOTHING`,
          [repo, sessionId, paths.map(touchedKey), paths],
        );
      });
    },

    async touchedAt(repo, keys) {
      if (keys.length === 0) return [];
      const rows = await conn.query<{ session_id: string; path: string }>(
        `SELECT t.session_id, t.path FROM ${conn.t('touched')} t JOIN ${conn.t('sessions')} s ON s.id = t.session_id
         WHERE t.repo = $1 AND t.key = ANY($2) AND s.ended_at IS NULL`,
        [repo, keys],
      );
      return rows.map((r) => ({ sessionId: r.session_id, path: r.path }));
    },
  };
}
