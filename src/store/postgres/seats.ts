import type { SeatRecord, SeatStore } from '../seat-types.js';
import type { PgConn, Q } from './conn.js';
import { appendPgJournal } from './journal.js';

interface SeatRow {
  host: string;
  name: string;
  agent: string;
  pool: string;
  env: Record<string, string>;
  concurrency: number;
  pay_per_use: boolean;
  exhausted_until: number | null;
  exhausted_at: number | null;
  exhausted_why: string | null;
  created_at: number;
}

const toSeat = (r: SeatRow): SeatRecord => ({
  host: r.host,
  name: r.name,
  agent: r.agent,
  pool: r.pool,
  env: r.env,
  concurrency: r.concurrency,
  payPerUse: r.pay_per_use,
  exhaustedUntil: r.exhausted_until,
  exhaustedAt: r.exhausted_at,
  exhaustedWhy: r.exhausted_why,
  createdAt: r.created_at,
});

/** Seats on PostgreSQL (seat-types.ts). */
export function pgSeats(conn: PgConn): SeatStore {
  const get = async (q: Q, host: string, name: string) => {
    const [r] = await q<SeatRow>(`SELECT * FROM ${conn.t('seats')} WHERE host = $1 AND name = $2`, [host, name]);
    return r ? toSeat(r) : null;
  };
  return {
    addSeat(seat, entry) {
      return conn.tx(async (q, now) => {
        const added = await q(
          `INSERT INTO ${conn.t('seats')} (host, name, agent, pool, env, concurrency, pay_per_use, created_at)
           VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8) ON CONFLICT DO NOTHING RETURNING name`,
          [
            seat.host,
            seat.name,
            seat.agent,
            seat.pool,
            JSON.stringify(seat.env),
            seat.concurrency,
            seat.payPerUse,
            now,
          ],
        );
        if (added.length === 0) return null;
        await appendPgJournal(conn, q, now, [entry]);
        return get(q, seat.host, seat.name);
      });
    },

    removeSeat(host, name, entry) {
      return conn.tx(async (q, now) => {
        const gone = await q(`DELETE FROM ${conn.t('seats')} WHERE host = $1 AND name = $2 RETURNING name`, [
          host,
          name,
        ]);
        if (gone.length) await appendPgJournal(conn, q, now, [entry]);
        return gone.length > 0;
      });
    },

    async listSeats(host) {
      const rows =
        host === null
          ? await conn.query<SeatRow>(`SELECT * FROM ${conn.t('seats')} ORDER BY host, name`)
          : await conn.query<SeatRow>(`SELECT * FROM ${conn.t('seats')} WHERE host = $1 ORDER BY name`, [host]);
      return rows.map(toSeat);
    },

    exhaustSeat(host, name, until, why, entry) {
      return conn.tx(async (q, now) => {
        const changed = await q(
          `UPDATE ${conn.t('seats')} SET exhausted_until = $1, exhausted_at = $2, exhausted_why = $3
           WHERE host = $4 AND name = $5 AND (exhausted_until IS NULL OR exhausted_until < $1) RETURNING name`,
          [until, now, why, host, name],
        );
        if (changed.length) await appendPgJournal(conn, q, now, [entry]);
        return { changed: changed.length > 0, seat: await get(q, host, name) };
      });
    },

    restoreSeat(host, name, entry) {
      return conn.tx(async (q, now) => {
        const changed = await q(
          `UPDATE ${conn.t('seats')} SET exhausted_until = NULL, exhausted_at = NULL, exhausted_why = NULL
           WHERE host = $1 AND name = $2 AND exhausted_until IS NOT NULL RETURNING name`,
          [host, name],
        );
        if (changed.length) await appendPgJournal(conn, q, now, [entry]);
        return changed.length > 0;
      });
    },
  };
}
