import { LOCKED, NOW } from './conn.js';
import type { SqliteConn } from './conn.js';
import { fenced } from '../shared/errors.js';
import { ownerFrom, stateFrom, toGate } from '../shared/rows.js';
import type { GateRow, Taken } from '../shared/rows.js';
import type { GateLine, GateLineStore, GateTurn } from '../types.js';
import { FREE, writeState } from './state-writes.js';

// The line in front of a gate (types.ts GateLineStore): a ticket lock kept in the gate's row.
// q_issued counts tickets handed out, q_served the last one served or skipped; while
// q_issued > q_served someone waits, and a process may enter the gate only as the next ticket
// (starting its turn) or as the ticket being served, until the next one claims the turn.
// The turn is what keeps a contended gate fast: its owner goes on entering without a hand-over,
// as the last holder of a kernel lock does, until the next in line is there to take over (it
// claims the turn once the turn's quantum is over), so the gate never idles waiting for a waiter
// to wake up; the line is what bounds every wait by the turns before it.
// q_turn_end > 0: when the running turn is due to end; 0: the turn was claimed (or nobody's).

/** Whether a take or step with @ticket may enter as the line stands (named parameters). */
export const MAY_ENTER = `(q_issued = q_served OR @ticket = q_served + 1 OR (@ticket = q_served AND q_turn_end > 0))`;

/**
 * Serving the next ticket: its turn starts now, and the ticket after it keeps its place until that
 * turn is due to end plus the grace. A no-op for any other caller.
 */
export const SERVE = `q_served = CASE WHEN @ticket = q_served + 1 THEN @ticket ELSE q_served END,
  q_turn_end = CASE WHEN @ticket = q_served + 1 THEN ${NOW} + @quantum ELSE q_turn_end END,
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
}

/** MAY_ENTER, judged on a row read inside a transaction. */
export function mayEnter(row: LineRow, turn: GateTurn | undefined): boolean {
  if (row.q_issued === row.q_served) return true;
  const ticket = turn?.ticket ?? null;
  return ticket !== null && (ticket === row.q_served + 1 || (ticket === row.q_served && row.q_turn_end > 0));
}

type LineRead = GateRow & LineRow & { q_head_deadline: number; now: number };

function lineOf(row: LineRead | undefined, now: number): GateLine {
  if (!row) return { held: null, issued: 0, served: 0, turnEnd: 0, headDeadline: 0, now };
  return {
    held: row.pid === null ? null : toGate(row),
    issued: row.q_issued,
    served: row.q_served,
    turnEnd: row.q_turn_end,
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

// The next in line is there: the running turn ends (its owner enters no more; the gate itself is
// left to its holder).
const CLAIM = `UPDATE gates SET q_turn_end = 0 WHERE name = ? AND q_served + 1 = ? AND q_served < q_issued AND q_turn_end > 0`;

// A deadline further ahead than a turn and a grace can be is a clock stepped back: skippable too.
// The next ticket gets the grace from now, and no turn is running (it may enter at once).
const SKIP = `UPDATE gates SET q_served = q_served + 1, q_turn_end = 0, q_head_deadline = ${NOW} + @grace
  WHERE name = @name AND q_served + 1 = @ticket AND q_served < q_issued
    AND (@own OR q_head_deadline < ${NOW} OR q_head_deadline > ${NOW} + @grace + @grace)`;

// What releaseOrKeep decides on: whether the gate is still the caller's, and its line (due_later:
// the running turn is not due to end yet).
const KEPT = `SELECT token, pid, q_issued, q_served, q_turn_end, q_turn_end > ${NOW} AS due_later FROM gates WHERE name = ?`;

// A kept gate may be entered again while it is still the caller's (its token) and its turn runs,
// or nobody waits any more. Read with the session's state and standing, as a take reads them.
const RESUME = `SELECT (g.token = ? AND g.pid IS NOT NULL AND (g.q_issued = g.q_served OR (g.q_served = ? AND g.q_turn_end > 0))) AS ok,
    s.value AS s_value, s.version AS s_version, s.updated_at AS s_updated,
    (SELECT CASE WHEN ended_at IS NULL THEN 1 ELSE 2 END FROM sessions WHERE id = ?) AS s_session
  FROM gates g LEFT JOIN state s ON s.session_id = ? WHERE g.name = ?`;

export function sqliteGateLine(conn: SqliteConn): GateLineStore {
  return {
    async joinGateLine(name, graceMs) {
      const row = await conn.tryRun(() => (conn.stmt(JOIN).all(name, graceMs) as LineRead[])[0]!);
      return row === LOCKED ? 'locked' : { ticket: row.q_issued, line: lineOf(row, row.now) };
    },

    readGateLine(name) {
      return conn.run(() => {
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

    resumeGate(name, token, ticket, stateOf) {
      return conn.run(() => {
        const row = conn.stmt(RESUME).get(token, ticket, stateOf, stateOf, name) as
          (Omit<Taken, 'token'> & { ok: number }) | undefined;
        return row?.ok ? { state: stateFrom(row, stateOf), owner: ownerFrom(row, stateOf) } : null;
      });
    },

    async claimGateTurn(name, ticket) {
      const done = await conn.tryRun(() => conn.stmt(CLAIM).run(name, ticket).changes > 0);
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
