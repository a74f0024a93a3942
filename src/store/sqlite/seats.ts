import type { SeatRecord, SeatStore } from '../seat-types.js';
import type { SqliteConn } from './conn.js';
import { appendJournalRows } from './journal.js';

interface SeatRow {
  host: string;
  name: string;
  agent: string;
  pool: string;
  env: string;
  concurrency: number;
  pay_per_use: number;
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
  env: JSON.parse(r.env) as Record<string, string>,
  concurrency: r.concurrency,
  payPerUse: r.pay_per_use === 1,
  exhaustedUntil: r.exhausted_until,
  exhaustedAt: r.exhausted_at,
  exhaustedWhy: r.exhausted_why,
  createdAt: r.created_at,
});

/** Seats on SQLite (seat-types.ts). */
export function sqliteSeats(conn: SqliteConn): SeatStore {
  const get = (host: string, name: string) => {
    const r = conn.stmt(`SELECT * FROM seats WHERE host = ? AND name = ?`).get(host, name) as SeatRow | undefined;
    return r ? toSeat(r) : null;
  };
  return {
    addSeat(seat, entry) {
      return conn.immediate((now) => {
        const added = conn
          .stmt(
            `INSERT OR IGNORE INTO seats (host, name, agent, pool, env, concurrency, pay_per_use, created_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
          )
          .run(
            seat.host,
            seat.name,
            seat.agent,
            seat.pool,
            JSON.stringify(seat.env),
            seat.concurrency,
            seat.payPerUse ? 1 : 0,
            now,
          ).changes;
        if (!added) return null;
        appendJournalRows(conn, now, [entry]);
        return get(seat.host, seat.name);
      });
    },

    removeSeat(host, name, entry) {
      return conn.immediate((now) => {
        const gone = conn.stmt(`DELETE FROM seats WHERE host = ? AND name = ?`).run(host, name).changes > 0;
        if (gone) appendJournalRows(conn, now, [entry]);
        return gone;
      });
    },

    listSeats(host) {
      return conn.run(() =>
        (host === null
          ? (conn.stmt(`SELECT * FROM seats ORDER BY host, name`).all() as SeatRow[])
          : (conn.stmt(`SELECT * FROM seats WHERE host = ? ORDER BY name`).all(host) as SeatRow[])
        ).map(toSeat),
      );
    },

    exhaustSeat(host, name, until, why, entry) {
      return conn.immediate((now) => {
        const changed =
          conn
            .stmt(
              `UPDATE seats SET exhausted_until = ?, exhausted_at = ?, exhausted_why = ?
               WHERE host = ? AND name = ? AND (exhausted_until IS NULL OR exhausted_until < ?)`,
            )
            .run(until, now, why, host, name, until).changes > 0;
        if (changed) appendJournalRows(conn, now, [entry]);
        return { changed, seat: get(host, name) };
      });
    },

    restoreSeat(host, name, entry) {
      return conn.immediate((now) => {
        const changed =
          conn
            .stmt(
              `UPDATE seats SET exhausted_until = NULL, exhausted_at = NULL, exhausted_why = NULL
               WHERE host = ? AND name = ? AND exhausted_until IS NOT NULL`,
            )
            .run(host, name).changes > 0;
        if (changed) appendJournalRows(conn, now, [entry]);
        return changed;
      });
    },
  };
}
