import type { ResourceRef } from '../../core/resource.js';
import { conflictingRowsPg } from './claim-reads.js';
import type { PgConn, Q } from './conn.js';
import { appendPgJournal } from './journal.js';
import {
  cycleAmongLive,
  describeCycle,
  resourcesText,
  toWait,
  waitEntry,
  waitedResources,
} from '../shared/wait-cycle.js';
import type { WaitRow } from '../shared/wait-cycle.js';
import type { CycleStep, WaitStore } from '../journal-types.js';
import type { ClaimRecord, OwnerJudge } from '../types.js';

/**
 * The cycle `sessionId` waiting for `wanted` would close. Wait decisions take one advisory lock
 * first (so two waits that close a cycle together are decided one after the other, across hosts),
 * then read the live waits and the holders of everything waited for.
 */
async function cycleIn(
  conn: PgConn,
  q: Q,
  sessionId: string,
  wanted: ResourceRef[],
  judge: OwnerJudge,
  now: number,
  exceptId?: number,
): Promise<CycleStep[] | null> {
  await q(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`lanes:waits:${conn.target.schema}`]);
  const rows = (await q<WaitRow>(`SELECT * FROM ${conn.t('waits')}`)).filter((r) => Number(r.id) !== exceptId);
  const holders = new Map<string, ClaimRecord[]>();
  for (const ref of waitedResources(wanted, rows.map(toWait)))
    holders.set(`${ref.scope}\u0000${ref.kind}\u0000${ref.name}`, await conflictingRowsPg(conn, q, [ref]));
  return cycleAmongLive(
    sessionId,
    wanted,
    rows,
    judge,
    now,
    (ref) => holders.get(`${ref.scope}\u0000${ref.kind}\u0000${ref.name}`) ?? [],
  );
}

/** The waiter's ticket, for its journal entries. */
async function ticketOf(conn: PgConn, q: Q, sessionId: string): Promise<string | null> {
  const [row] = await q<{ ticket: string | null }>(`SELECT ticket FROM ${conn.t('sessions')} WHERE id = $1`, [
    sessionId,
  ]);
  return row?.ticket ?? null;
}

export function pgWaits(conn: PgConn): WaitStore {
  return {
    registerWait(sessionId, resources, owner, judge) {
      return conn.tx(async (q, now) => {
        const cycle = await cycleIn(conn, q, sessionId, resources, judge, now);
        if (cycle) {
          await appendPgJournal(conn, q, now, [
            waitEntry('claim.cycle', sessionId, await ticketOf(conn, q, sessionId), resources, {
              cycle: describeCycle(cycle),
            }),
          ]);
          return { ok: false as const, cycle };
        }
        const [row] = await q<WaitRow>(
          `INSERT INTO ${conn.t('waits')} (session_id, resources, host, boot_id, pid, start_time, since, seen_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $7) RETURNING *`,
          [sessionId, resourcesText(resources), owner.host, owner.bootId, owner.pid, owner.startTime, now],
        );
        const holders = [...new Set((await conflictingRowsPg(conn, q, resources)).map((c) => c.sessionId))].filter(
          (h) => h !== sessionId,
        );
        await appendPgJournal(conn, q, now, [
          waitEntry('claim.wait', sessionId, await ticketOf(conn, q, sessionId), resources, {
            heldBy: holders,
            wait: Number(row?.id),
          }),
        ]);
        return { ok: true as const, wait: toWait(row as WaitRow) };
      });
    },

    checkWait(id, judge) {
      return conn.tx(async (q, now) => {
        const [row] = await q<WaitRow>(`SELECT * FROM ${conn.t('waits')} WHERE id = $1`, [id]);
        if (!row) return null;
        const wait = toWait(row);
        const cycle = await cycleIn(conn, q, wait.sessionId, wait.resources, judge, now, id);
        if (!cycle) {
          await q(`UPDATE ${conn.t('waits')} SET seen_at = $1 WHERE id = $2`, [now, id]);
          return null;
        }
        await q(`DELETE FROM ${conn.t('waits')} WHERE id = $1`, [id]);
        await appendPgJournal(conn, q, now, [
          waitEntry('claim.cycle', wait.sessionId, await ticketOf(conn, q, wait.sessionId), wait.resources, {
            cycle: describeCycle(cycle),
          }),
        ]);
        return cycle;
      });
    },

    async endWait(id) {
      await conn.query(`DELETE FROM ${conn.t('waits')} WHERE id = $1`, [id]);
    },

    async listWaits() {
      return (await conn.query<WaitRow>(`SELECT * FROM ${conn.t('waits')} ORDER BY since, id`)).map(toWait);
    },
  };
}
