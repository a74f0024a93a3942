import type { TouchedHit, TouchedStore } from '../touched-types.js';
import { touchedKey } from '../touched-types.js';
import type { SqliteConn } from './conn.js';

/** The touched-paths index on SQLite (touched-types.ts). */
export function sqliteTouched(conn: SqliteConn): TouchedStore {
  return {
    indexTouched(sessionId, repo, paths, replace) {
      return conn.immediateNoClock(() => {
        if (replace) conn.stmt(`DELETE FROM touched WHERE session_id = ?`).run(sessionId);
        const add = conn.stmt(`INSERT OR IGNORE INTO touched (repo, key, session_id, path) VALUES (?, ?, ?, ?)`);
        for (const p of paths) add.run(repo, touchedKey(p), sessionId, p);
      });
    },

    touchedAt(repo, keys) {
      return conn.run(() => {
        if (keys.length === 0) return [];
        // json_each: one statement for any number of keys; only sessions still open.
        return (
          conn
            .stmt(
              `SELECT t.session_id AS sessionId, t.path AS path FROM touched t JOIN sessions s ON s.id = t.session_id
               WHERE t.repo = ? AND t.key IN (SELECT value FROM json_each(?)) AND s.ended_at IS NULL`,
            )
            .all(repo, JSON.stringify(keys)) as TouchedHit[]
        ).map((r) => ({ sessionId: r.sessionId, path: r.path }));
      });
    },
  };
}
