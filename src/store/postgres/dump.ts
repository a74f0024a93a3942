import type { PgConn } from './conn.js';
import { dumpPgJournal, insertPgJournal } from './journal.js';
import { notEmpty } from '../shared/errors.js';
import { SESSION_COLUMNS, dumpedSessionValues, toClaim, toSession, toState } from '../shared/rows.js';
import type { ClaimRow, SessionRow, StateRow } from '../shared/rows.js';
import type { DumpStore } from '../types.js';

/** `lanes store copy` on PostgreSQL. */
export function pgDump(conn: PgConn): DumpStore {
  return {
    dump(options = {}) {
      // One transaction: a consistent picture even while other clients work.
      return conn.tx(async (q) => ({
        sessions: (await q<SessionRow>(`SELECT * FROM ${conn.t('sessions')} ORDER BY created_at, id`)).map(toSession),
        claims: (await q<ClaimRow>(`SELECT * FROM ${conn.t('claims')} ORDER BY scope, kind, name`)).map(toClaim),
        fences: (
          await q<{ scope: string; kind: string; name: string; last_token: number }>(
            `SELECT scope, kind, name, last_token FROM ${conn.t('fences')}`,
          )
        ).map((f) => ({ scope: f.scope, kind: f.kind, name: f.name, lastToken: Number(f.last_token) })),
        state: (await q<StateRow>(`SELECT * FROM ${conn.t('state')}`)).map(toState),
        gates: (await q<{ name: string; token: number }>(`SELECT name, token FROM ${conn.t('gates')}`)).map((g) => ({
          name: g.name,
          token: Number(g.token),
        })),
        ...(options.journal ? { journal: await dumpPgJournal(conn, q) } : {}),
      }));
    },

    async load(d, { replace }) {
      await conn.tx(async (q) => {
        // Nobody claims or ends sessions while the store is replaced.
        await q(
          `LOCK TABLE ${conn.t('sessions')}, ${conn.t('claims')}, ${conn.t('state')}, ${conn.t('fences')}, ${conn.t('gates')} IN EXCLUSIVE MODE`,
        );
        const count = async (t: string) =>
          Number((await q<{ n: string }>(`SELECT count(*) AS n FROM ${conn.t(t)}`))[0]?.n ?? 0);
        const counts = {
          sessions: await count('sessions'),
          claims: await count('claims'),
          state: await count('state'),
        };
        if (!replace && counts.sessions + counts.claims + counts.state > 0) throw notEmpty(conn.target.display, counts);
        for (const t of ['claims', 'state', 'sessions']) await q(`DELETE FROM ${conn.t(t)}`);
        for (const s of d.sessions) {
          await q(
            `INSERT INTO ${conn.t('sessions')} (${SESSION_COLUMNS}, created_at, last_seen_at, ended_at, end_reason, conversation, conversation_pid, died, setup_state, env_slug)
            VALUES (${Array.from({ length: 23 }, (_, i) => `$${i + 1}`).join(', ')})`,
            dumpedSessionValues(s),
          );
        }
        for (const f of d.fences) {
          await q(
            `INSERT INTO ${conn.t('fences')} (scope, kind, name, last_token) VALUES ($1, $2, $3, $4)
            ON CONFLICT (scope, kind, name) DO UPDATE SET last_token = GREATEST(${conn.t('fences')}.last_token, excluded.last_token)`,
            [f.scope, f.kind, f.name, f.lastToken],
          );
        }
        for (const c of d.claims)
          await q(
            `INSERT INTO ${conn.t('claims')} (scope, kind, name, session_id, token, acquired_at) VALUES ($1, $2, $3, $4, $5, $6)`,
            [c.scope, c.kind, c.name, c.sessionId, c.token, c.acquiredAt],
          );
        for (const s of d.state)
          await q(`INSERT INTO ${conn.t('state')} (session_id, value, version, updated_at) VALUES ($1, $2, $3, $4)`, [
            s.sessionId,
            s.value,
            s.version,
            s.updatedAt,
          ]);
        for (const g of d.gates) {
          await q(
            `INSERT INTO ${conn.t('gates')} (name, token, acquired_at, lease_until) VALUES ($1, $2, 0, 0)
            ON CONFLICT (name) DO UPDATE SET token = GREATEST(${conn.t('gates')}.token, excluded.token), pid = NULL, session_id = NULL, command = NULL`,
            [g.name, g.token],
          );
        }
        await insertPgJournal(conn, q, d.journal ?? []);
      });
    },
  };
}
