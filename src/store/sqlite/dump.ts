import type { SqliteConn } from './conn.js';
import { dumpJournalRows, insertJournalRows } from './journal.js';
import { notEmpty } from '../shared/errors.js';
import { SESSION_COLUMNS, dumpedSessionValues, toClaim, toSession, toState } from '../shared/rows.js';
import type { ClaimRow, SessionRow, StateRow } from '../shared/rows.js';
import type { DumpStore } from '../types.js';

/** `lanes store copy` on one SQLite connection. */
export function sqliteDump(conn: SqliteConn): DumpStore {
  return {
    dump(options = {}) {
      return conn.run(() => ({
        sessions: (conn.stmt(`SELECT * FROM sessions ORDER BY created_at, id`).all() as SessionRow[]).map(toSession),
        claims: (conn.stmt(`SELECT * FROM claims ORDER BY scope, kind, name`).all() as ClaimRow[]).map(toClaim),
        fences: (
          conn.stmt(`SELECT scope, kind, name, last_token FROM fences`).all() as {
            scope: string;
            kind: string;
            name: string;
            last_token: number;
          }[]
        ).map((f) => ({ scope: f.scope, kind: f.kind, name: f.name, lastToken: f.last_token })),
        state: (conn.stmt(`SELECT * FROM state`).all() as StateRow[]).map(toState),
        gates: conn.stmt(`SELECT name, token FROM gates`).all() as { name: string; token: number }[],
        ...(options.journal ? { journal: dumpJournalRows(conn) } : {}),
      }));
    },

    load(d, { replace }) {
      return conn.immediate(() => {
        const count = (t: string) => (conn.stmt(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n;
        const counts = { sessions: count('sessions'), claims: count('claims'), state: count('state') };
        if (!replace && counts.sessions + counts.claims + counts.state > 0) throw notEmpty(conn.file, counts);
        for (const t of ['claims', 'state', 'sessions']) conn.stmt(`DELETE FROM ${t}`).run();
        const ins =
          conn.stmt(`INSERT INTO sessions (${SESSION_COLUMNS}, created_at, last_seen_at, ended_at, end_reason, conversation, conversation_pid, died, setup_state, env_slug)
          VALUES (${Array(23).fill('?').join(', ')})`);
        for (const s of d.sessions) ins.run(...dumpedSessionValues(s));
        const fence = conn.stmt(
          `INSERT INTO fences (scope, kind, name, last_token) VALUES (?, ?, ?, ?) ON CONFLICT (scope, kind, name) DO UPDATE SET last_token = max(last_token, excluded.last_token)`,
        );
        for (const f of d.fences) fence.run(f.scope, f.kind, f.name, f.lastToken);
        const claim = conn.stmt(
          `INSERT INTO claims (scope, kind, name, session_id, token, acquired_at) VALUES (?, ?, ?, ?, ?, ?)`,
        );
        for (const c of d.claims) claim.run(c.scope, c.kind, c.name, c.sessionId, c.token, c.acquiredAt);
        const st = conn.stmt(`INSERT INTO state (session_id, value, version, updated_at) VALUES (?, ?, ?, ?)`);
        for (const s of d.state) st.run(s.sessionId, s.value, s.version, s.updatedAt);
        const gate = conn.stmt(`INSERT INTO gates (name, token, acquired_at, lease_until) VALUES (?, ?, 0, 0)
          ON CONFLICT (name) DO UPDATE SET token = max(token, excluded.token), pid = NULL, session_id = NULL, command = NULL`);
        for (const g of d.gates) gate.run(g.name, g.token);
        insertJournalRows(conn, d.journal ?? []);
      }, true);
    },
  };
}
