import { LOCKED, NOW } from './conn.js';
import type { SqliteConn } from './conn.js';
import { fenced } from '../shared/errors.js';
import { toGate } from '../shared/rows.js';
import type { GateRow } from '../shared/rows.js';
import type { GateLine, GateLineStore, GateTurn } from '../types.js';
import { FREE, writeState } from './state-writes.js';

// The line in front of a gate (types.ts GateLineStore): a ticket lock kept in the gate's row.
// q_issued counts tickets handed out, q_served the last one served or skipped; while
// q_issued > q_served someone waits, and a process may enter the gate only as the next ticket
// (starting its turn) or as the ticket being served, while the next one does not claim the turn.
// The turn is what keeps a contended gate fast: its owner goes on entering without a hand-over,
// as the last holder of a kernel lock does. The next in line claims the turn once it is due, for a
// moment it renews while it waits for the gate (q_claim_until), and the turn ends when it enters:
// so the gate never idles for a waiter that is slow to wake or that the CPU was taken from (its
// claim lapses and the owner goes on), and the line bounds every wait by the turns before it.
// q_turn_end > 0: when the running turn is due to end; 0: nobody's turn (a ticket was skipped).

/** Whether the ticket being served may go on entering: its turn runs and nobody claims it now. */
const OWNER_GOES_ON = `q_turn_end > 0 AND q_claim_until < ${NOW}`;

/** Whether a take or step with @ticket may enter as the line stands (named parameters). */
export const MAY_ENTER = `(q_issued = q_served OR @ticket = q_served + 1 OR (@ticket = q_served AND ${OWNER_GOES_ON}))`;

/** The STEP_READ (gates.ts) case of a ticket (the first ?) being served that may go on entering. */
export const STEP_OWNER = `? = q_served AND ${OWNER_GOES_ON}`;

/**
 * Serving the next ticket: its turn starts now, due to end @quantum later, and the ticket after it
 * keeps its place until then plus the grace. A no-op for any other caller.
 */
export const SERVE = `q_served = CASE WHEN @ticket = q_served + 1 THEN @ticket ELSE q_served END,
  q_turn_end = CASE WHEN @ticket = q_served + 1 THEN ${NOW} + @quantum ELSE q_turn_end END,
  q_claim_until = CASE WHEN @ticket = q_served + 1 THEN 0 ELSE q_claim_until END,
  q_head_deadline = CASE WHEN @ticket = q_served + 1 THEN ${NOW} + @quantum + @grace ELSE q_head_deadline END`;

export const SERVE_ONLY = `UPDATE gates SET ${SERVE} WHERE name = @name`;

export function turnArgs(turn: GateTurn | undefined) {
  return { ticket: turn?.ticket ?? null, quantum: turn?.quantumMs ?? 0, grace: turn?.graceMs ?? 0 };
}

/** The columns of a gate row the line uses. */
export interface LineRow {
  q_issued: number;
  q_served: number;
  q_turn_end: number;
  q_claim_until: number;
}

/** MAY_ENTER, judged on a row read with the store's clock `now`. */
export function mayEnter(row: LineRow, turn: GateTurn | undefined, now: number): boolean {
  if (row.q_issued === row.q_served) return true;
  const ticket = turn?.ticket ?? null;
  return (
    ticket !== null &&
    (ticket === row.q_served + 1 || (ticket === row.q_served && row.q_turn_end > 0 && row.q_claim_until < now))
  );
}

type LineRead = GateRow & LineRow & { q_head_deadline: number; now: number };

function lineOf(row: LineRead | undefined, now: number): GateLine {
  if (!row) return { held: null, issued: 0, served: 0, turnEnd: 0, claimUntil: 0, headDeadline: 0, now };
  return {
    held: row.pid === null ? null : toGate(row),
    issued: row.q_issued,
    served: row.q_served,
    turnEnd: row.q_turn_end,
    claimUntil: row.q_claim_until,
    headDeadline: row.q_head_deadline,
    now: row.now,
  };
}

const READ = `SELECT *, ${NOW} AS now FROM gates WHERE name = ?`;

// The first to join a gate with no row makes it, free, with token 0 (a take makes it 1). Joining an
// empty line makes the joiner first in line at once, with the grace from now.
const JOIN = `INSERT INTO gates (name, token, acquired_at, lease_until, q_issued, q_served, q_turn_end, q_head_deadline)
  VALUES (?, 0, ${NOW}, ${NOW}, 1, 0, 0, ${NOW} + ?)
  ON CONFLICT (name) DO UPDATE SET q_issued = q_issued + 1,
    q_head_deadline = CASE WHEN q_issued = q_served THEN excluded.q_head_deadline ELSE q_head_deadline END
  RETURNING *, ${NOW} AS now`;

const KEEP = `UPDATE gates SET q_head_deadline = ${NOW} + ? WHERE name = ? AND q_served + 1 = ? AND q_served < q_issued`;

// The next in line is there: the turn's owner enters no more until then (the gate itself stays
// with its holder), unless the claim lapses without being renewed.
const CLAIM = `UPDATE gates SET q_claim_until = ${NOW} + ? WHERE name = ? AND q_served + 1 = ? AND q_served < q_issued`;

// A deadline further ahead than a turn and a grace can be is a clock stepped back: skippable too.
// The next ticket gets the grace from now, and no turn is running (it may enter at once).
const SKIP = `UPDATE gates SET q_served = q_served + 1, q_turn_end = 0, q_claim_until = 0, q_head_deadline = ${NOW} + @grace
  WHERE name = @name AND q_served + 1 = @ticket AND q_served < q_issued
    AND (@own OR q_head_deadline < ${NOW} OR q_head_deadline > ${NOW} + @grace + @grace)`;

// What releaseOrKeep decides on: whether the gate is still the caller's, and its line (due_later:
// the running turn is not due to end yet, nor claimed).
const KEPT = `SELECT token, pid, q_issued, q_served, q_turn_end > ${NOW} AND q_claim_until < ${NOW} AS due_later
  FROM gates WHERE name = ?`;

export function sqliteGateLine(conn: SqliteConn): GateLineStore {
  return {
    async joinGateLine(name, graceMs) {
      const row = await conn.tryRun(() => (conn.stmt(JOIN).all(name, graceMs) as LineRead[])[0]!);
      return row === LOCKED ? 'locked' : { ticket: row.q_issued, line: lineOf(row, row.now) };
    },

    readGateLine(name) {
      return conn.glance(() => {
        const row = conn.stmt(READ).get(name) as LineRead | undefined;
        return lineOf(row, row?.now ?? conn.clock());
      });
    },

    async keepGateHead(name, ticket, graceMs) {
      const done = await conn.tryRun(() => conn.stmt(KEEP).run(graceMs, name, ticket).changes > 0);
      return done === LOCKED ? 'locked' : done;
    },

    releaseOrKeep(name, token, stateOf, change, ticket) {
      // Soon: the next holder of a contended gate waits for exactly this write.
      return conn.immediateSoon(() => {
        const row = conn.stmt(KEPT).get(name) as
          (LineRow & { token: number; pid: number | null; due_later: number }) | undefined;
        if (!row || row.token !== token || row.pid === null) throw fenced(name, token);
        if (stateOf !== null) writeState(conn, stateOf, change);
        const keep = row.q_served === ticket && row.q_issued > row.q_served && row.due_later === 1;
        if (!keep) conn.stmt(FREE).run(name, token);
        return keep;
      });
    },

    async claimGateTurn(name, ticket, leaseMs) {
      const done = await conn.tryRun(() => conn.stmt(CLAIM).run(leaseMs, name, ticket).changes > 0);
      return done === LOCKED ? 'locked' : done;
    },

    async skipGateHead(name, ticket, graceMs, own) {
      const done = await conn.tryRun(
        () => conn.stmt(SKIP).run({ name, ticket, grace: graceMs, own: own ? 1 : 0 }).changes > 0,
      );
      return done === LOCKED ? 'locked' : done;
    },
  };
}
