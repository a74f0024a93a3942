import type { Lanes, SeatLease } from '../index.js';

// A session on a seat (lanes seat), as `lanes start --seat` and `lanes new --seat` make it.

/** Leases the seat; when none can be had the session just started is ended again, its claims released. */
export async function leaseOrUndo(
  lanes: Lanes,
  id: string,
  which: string,
  newWorktree: boolean,
  command: readonly string[],
): Promise<SeatLease> {
  try {
    return await lanes.seats.lease(id, which, { command });
  } catch (e) {
    await lanes.sessions
      .end(id, { reason: `no seat: ${(e as Error).message}`, ...(newWorktree ? { removeWorktree: true } : {}) })
      .catch(() => undefined);
    throw e;
  }
}
