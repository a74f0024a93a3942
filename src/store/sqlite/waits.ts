import type { ResourceRef } from '../../core/resource.js';
import { conflictingRows } from './claim-reads.js';
import type { SqliteConn } from './conn.js';
import { appendJournalRows } from './journal.js';
import { ticketOf } from './sessions.js';
import { cycleAmongLive, describeCycle, resourcesText, toWait, waitEntry } from '../shared/wait-cycle.js';
import type { WaitRow } from '../shared/wait-cycle.js';
import type { CycleStep, WaitStore } from '../journal-types.js';
import type { OwnerJudge } from '../types.js';

/** The cycle `sessionId` waiting for `wanted` would close, read in the caller's (write) transaction. */
function cycleIn(
  conn: SqliteConn,
  sessionId: string,
  wanted: ResourceRef[],
  judge: OwnerJudge,
  now: number,
  exceptId?: number,
): CycleStep[] | null {
  const rows = (conn.stmt(`SELECT * FROM waits`).all() as WaitRow[]).filter((r) => r.id !== exceptId);
  return cycleAmongLive(sessionId, wanted, rows, judge, now, (ref) => conflictingRows(conn, [ref]));
}

/** Claim waits on SQLite: every check-and-write runs under the one write lock, so decisions serialize. */
export function sqliteWaits(conn: SqliteConn): WaitStore {
  return {
    registerWait(sessionId, resources, owner, judge) {
      return conn.immediate((now) => {
        const cycle = cycleIn(conn, sessionId, resources, judge, now);
        if (cycle) {
          appendJournalRows(conn, now, [
            waitEntry('claim.cycle', sessionId, ticketOf(conn, sessionId), resources, { cycle: describeCycle(cycle) }),
          ]);
          return { ok: false as const, cycle };
        }
        const row = conn
          .stmt(
            `INSERT INTO waits (session_id, resources, host, boot_id, pid, start_time, since, seen_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
          )
          .get(
            sessionId,
            resourcesText(resources),
            owner.host,
            owner.bootId,
            owner.pid,
            owner.startTime,
            now,
            now,
          ) as WaitRow;
        const holders = [
          ...new Set(resources.flatMap((r) => conflictingRows(conn, [r]).map((c) => c.sessionId))),
        ].filter((h) => h !== sessionId);
        appendJournalRows(conn, now, [
          waitEntry('claim.wait', sessionId, ticketOf(conn, sessionId), resources, { heldBy: holders, wait: row.id }),
        ]);
        return { ok: true as const, wait: toWait(row) };
      });
    },

    checkWait(id, judge) {
      return conn.immediate((now) => {
        const row = conn.stmt(`SELECT * FROM waits WHERE id = ?`).get(id) as WaitRow | undefined;
        if (!row) return null;
        const wait = toWait(row);
        const cycle = cycleIn(conn, wait.sessionId, wait.resources, judge, now, id);
        if (!cycle) {
          conn.stmt(`UPDATE waits SET seen_at = ? WHERE id = ?`).run(now, id);
          return null;
        }
        conn.stmt(`DELETE FROM waits WHERE id = ?`).run(id);
        appendJournalRows(conn, now, [
          waitEntry('claim.cycle', wait.sessionId, ticketOf(conn, wait.sessionId), wait.resources, {
            cycle: describeCycle(cycle),
          }),
        ]);
        return cycle;
      });
    },

    endWait(id) {
      return conn.immediate(() => void conn.stmt(`DELETE FROM waits WHERE id = ?`).run(id));
    },

    listWaits() {
      return conn.run(() => (conn.stmt(`SELECT * FROM waits ORDER BY since, id`).all() as WaitRow[]).map(toWait));
    },
  };
}
