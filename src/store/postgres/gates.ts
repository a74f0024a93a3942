import { fenced } from '../shared/errors.js';
import type { PgConn } from './conn.js';
import { PG_NOW } from './schema.js';
import { ownerFrom, stateFrom, toGate, toState } from '../shared/rows.js';
import type { GateRow, StateRow, Taken } from '../shared/rows.js';
import type { GateAttempt, GateHolder, GateRecord, GateStore } from '../types.js';

// Gates across hosts, as on SQLite: one row per gate that outlives its holders (pid NULL = free;
// the token only grows). The holder is an identity with a lease, not a connection: a client that
// dies, or whose connection half-opens, holds nothing a server-side session would have to notice;
// its gate is taken over when the judge finds its owner dead (same host: the pid proof) or its
// lease expired (other hosts; holders renew while they work). No advisory lock outlives a
// transaction, which keeps PgBouncer's transaction mode working.

function takeFree(conn: PgConn, anyHolder: boolean): string {
  const st = conn.t('state');
  return `UPDATE ${conn.t('gates')} SET token = token + 1, session_id = $1, host = $2, boot_id = $3, pid = $4, start_time = $5, command = $6,
    acquired_at = ${PG_NOW}, lease_until = ${PG_NOW} + $7 WHERE name = $8${anyHolder ? '' : ' AND pid IS NULL'}
    RETURNING token, (SELECT value FROM ${st} WHERE session_id = $9) AS s_value, (SELECT version FROM ${st} WHERE session_id = $9) AS s_version,
      (SELECT updated_at FROM ${st} WHERE session_id = $9) AS s_updated,
      (SELECT CASE WHEN ended_at IS NULL THEN 1 ELSE 2 END FROM ${conn.t('sessions')} WHERE id = $9) AS s_session`;
}

const args = (h: GateHolder, leaseMs: number, name: string, stateOf: string | null) => [
  h.sessionId,
  h.owner.host,
  h.owner.bootId,
  h.owner.pid,
  h.owner.startTime,
  h.command,
  leaseMs,
  name,
  stateOf,
];

/** Gates and state on PostgreSQL. */
export function pgGates(conn: PgConn): GateStore {
  return {
    async readState(sessionId) {
      const [row] = await conn.query<StateRow>(`SELECT * FROM ${conn.t('state')} WHERE session_id = $1`, [sessionId]);
      return row ? toState(row) : null;
    },

    async readStates(sessionIds) {
      if (sessionIds.length === 0) return [];
      return (
        await conn.query<StateRow>(`SELECT * FROM ${conn.t('state')} WHERE session_id = ANY($1)`, [sessionIds])
      ).map(toState);
    },

    async tryAcquireGate(name, holder, leaseMs, judge, stateOf) {
      const [fast] = await conn.query<Taken>(takeFree(conn, false), args(holder, leaseMs, name, stateOf));
      if (fast)
        return {
          acquired: true,
          token: Number(fast.token),
          previous: null,
          previousWhy: '',
          state: stateFrom(fast, stateOf),
          owner: ownerFrom(fast, stateOf),
        };
      return conn.tx(async (q, now): Promise<GateAttempt> => {
        await q(
          `INSERT INTO ${conn.t('gates')} (name, token, acquired_at, lease_until) VALUES ($1, 0, $2, $2) ON CONFLICT (name) DO NOTHING`,
          [name, now],
        );
        const [row] = await q<GateRow>(`SELECT * FROM ${conn.t('gates')} WHERE name = $1 FOR UPDATE`, [name]);
        let previous: GateRecord | null = null;
        let previousWhy = '';
        if (row && row.pid !== null) {
          const current = toGate(row);
          const [verdict] = judge([{ owner: current.owner, lastSeenMs: current.leaseUntil - leaseMs }], now);
          if (verdict!.live) return { acquired: false, holder: current };
          previous = current;
          previousWhy = verdict!.why;
        }
        const [taken] = await q<Taken>(takeFree(conn, true), args(holder, leaseMs, name, stateOf));
        return {
          acquired: true,
          token: Number(taken?.token),
          previous,
          previousWhy,
          state: taken ? stateFrom(taken, stateOf) : null,
          owner: taken ? ownerFrom(taken, stateOf) : null,
        };
      });
    },

    async peekGate(name) {
      const [row] = await conn.query<GateRow>(`SELECT * FROM ${conn.t('gates')} WHERE name = $1 AND pid IS NOT NULL`, [
        name,
      ]);
      return row ? toGate(row) : null;
    },

    async renewGate(name, token, leaseMs) {
      const rows = await conn.query(
        `UPDATE ${conn.t('gates')} SET lease_until = ${PG_NOW} + $1 WHERE name = $2 AND token = $3 AND pid IS NOT NULL RETURNING name`,
        [leaseMs, name, token],
      );
      return rows.length > 0;
    },

    async releaseGate(name, token, stateOf, change) {
      await conn.tx(async (q) => {
        const freed = await q(
          `UPDATE ${conn.t('gates')} SET pid = NULL, session_id = NULL, command = NULL WHERE name = $1 AND token = $2 AND pid IS NOT NULL RETURNING name`,
          [name, token],
        );
        if (freed.length === 0) throw fenced(name, token);
        if (stateOf === null || change.kind === 'keep') return;
        if (change.kind === 'delete') {
          await q(`DELETE FROM ${conn.t('state')} WHERE session_id = $1`, [stateOf]);
          return;
        }
        await q(
          `INSERT INTO ${conn.t('state')} (session_id, value, version, updated_at) VALUES ($1, $2, 1, ${PG_NOW})
           ON CONFLICT (session_id) DO UPDATE SET value = excluded.value, version = ${conn.t('state')}.version + 1, updated_at = excluded.updated_at`,
          [stateOf, change.value],
        );
      });
    },
  };
}
