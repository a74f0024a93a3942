import { fenced } from '../shared/errors.js';
import { LOCKED, NOW } from './conn.js';
import type { SqliteConn } from './conn.js';
import { MAY_ENTER, SERVE, SERVE_ONLY, STEP_OWNER, mayEnter, sqliteGateLine, turnArgs } from './gate-line.js';
import type { LineRow } from './gate-line.js';
import { FREE, writeState } from './state-writes.js';
import { ownerFrom, stateFrom, toGate, toState } from '../shared/rows.js';
import type { GateRow, StateRow, Taken } from '../shared/rows.js';
import type {
  GateAttempt,
  GateHolder,
  GateRecord,
  GateStepResult,
  GateStore,
  GateTurn,
  StateRecord,
} from '../types.js';

// A gate is one row that outlives its holders: `pid IS NULL` means free, and `token` only grows,
// so every acquisition (including a takeover) gets a higher token than any before it. Taking a
// free gate is one UPDATE (atomic on its own); only a busy gate needs a transaction to judge its
// holder. This keeps an uncontended mutate() at two short statements.

// Taking a gate also reads the session's state in the same statement (one round trip less on the
// hot path of every mutate()), and serves the caller's ticket when it is the next in the gate's line
// (gate-line.ts). TAKE_FREE takes only a free gate the line lets the caller enter; TAKE (inside a
// transaction that judged the row) any.
const TAKE = `UPDATE gates SET token = token + 1, session_id = @session, host = @host, boot_id = @boot, pid = @pid,
  start_time = @start, command = @command, acquired_at = ${NOW}, lease_until = ${NOW} + @lease, ${SERVE} WHERE name = @name`;
const RETURNING = `RETURNING token, (SELECT value FROM state WHERE session_id = @stateOf) AS s_value,
    (SELECT version FROM state WHERE session_id = @stateOf) AS s_version, (SELECT updated_at FROM state WHERE session_id = @stateOf) AS s_updated,
    (SELECT CASE WHEN ended_at IS NULL THEN 1 ELSE 2 END FROM sessions WHERE id = @stateOf) AS s_session`;
const TAKE_FREE = `${TAKE} AND pid IS NULL AND ${MAY_ENTER} ${RETURNING}`;
const TAKE_ANY = `${TAKE} ${RETURNING}`;

function takeArgs(h: GateHolder, leaseMs: number, name: string, stateOf: string | null, turn?: GateTurn) {
  return {
    session: h.sessionId,
    host: h.owner.host,
    boot: h.owner.bootId,
    pid: h.owner.pid,
    start: h.owner.startTime,
    command: h.command,
    lease: leaseMs,
    name,
    stateOf,
    ...turnArgs(turn),
  };
}

function holderArgs(h: GateHolder): unknown[] {
  return [h.sessionId, h.owner.host, h.owner.bootId, h.owner.pid, h.owner.startTime, h.command];
}

/** A session's state as the current transaction sees it. */
function stateRow(conn: SqliteConn, sessionId: string): StateRecord | null {
  const row = conn.stmt(`SELECT * FROM state WHERE session_id = ?`).get(sessionId) as StateRow | undefined;
  return row ? toState(row) : null;
}

/** The s_session column of a take, for the path that inserts the gate row. */
function sessionStanding(conn: SqliteConn, stateOf: string | null): Pick<Taken, 's_session'> {
  if (stateOf === null) return { s_session: null };
  const row = conn
    .stmt(`SELECT CASE WHEN ended_at IS NULL THEN 1 ELSE 2 END AS s_session FROM sessions WHERE id = ?`)
    .get(stateOf) as Pick<Taken, 's_session'> | undefined;
  return row ?? { s_session: null };
}

// What a one-step change reads first, in one statement: whether the gate exists, is held, or is
// the caller's to enter as its line stands (STEP_* below, gate-line.ts MAY_ENTER), and the session's
// state and standing (the same columns a take returns).
// Positional parameters: binding them is measurably cheaper than named ones on this hot path.
// Read raw only (stepGate sets raw() on the cached statement, which keeps it): columns in this order.
const STEP_READ = `SELECT (SELECT CASE WHEN pid IS NOT NULL THEN 1 WHEN q_issued = q_served THEN 0
      WHEN ? = q_served + 1 THEN 3 WHEN ${STEP_OWNER} THEN 0 ELSE 2 END
      FROM gates WHERE name = ?) AS g_state,
    s.value AS s_value, s.version AS s_version, s.updated_at AS s_updated,
    (SELECT CASE WHEN ended_at IS NULL THEN 1 ELSE 2 END FROM sessions WHERE id = ?) AS s_session
  FROM (SELECT 1) LEFT JOIN state s ON s.session_id = ?`;
/** g_state of STEP_READ, besides 0 (free, the caller may enter) and null (no row yet: free, nobody waits). */
const STEP_HELD = 1;
const STEP_QUEUED = 2;
const STEP_SERVED = 3;

// Module constants, not templates built per call: the statement cache is keyed by the text, and a
// text built anew on every write is hashed anew on every lookup (measurable on the mutate path).
const INSERT_GATE = `INSERT INTO gates (name, token, session_id, host, boot_id, pid, start_time, command, acquired_at, lease_until) VALUES (?, 1, ?, ?, ?, ?, ?, ?, ${NOW}, ${NOW} + ?)`;

/** A gate's first row, held by `holder` with token 1, in the current transaction. */
function insertGate(conn: SqliteConn, name: string, holder: GateHolder, leaseMs: number): void {
  conn.stmt(INSERT_GATE).run(name, ...holderArgs(holder), leaseMs);
}

/** Takes a gate the caller may enter (or a missing one) inside the current transaction; returns the new token. */
function takeInTransaction(
  conn: SqliteConn,
  name: string,
  holder: GateHolder,
  leaseMs: number,
  exists: boolean,
  turn: GateTurn | undefined,
): number {
  if (!exists) {
    insertGate(conn, name, holder, leaseMs);
    return 1;
  }
  return (conn.stmt(TAKE_ANY).all(takeArgs(holder, leaseMs, name, null, turn)) as Taken[])[0]!.token;
}

/** The fast take: one statement, no-wait with a turn (LOCKED when another process writes). */
function takeFree(
  conn: SqliteConn,
  name: string,
  holder: GateHolder,
  leaseMs: number,
  stateOf: string | null,
  turn?: GateTurn,
) {
  // all(), never get(): in autocommit a RETURNING statement commits when it runs to its end, and
  // get() stops at the first row and resets, which drops a failed commit (a full disk) silently:
  // the caller would hold a token that was never written, and its release would look fenced.
  const take = () => (conn.stmt(TAKE_FREE).all(takeArgs(holder, leaseMs, name, stateOf, turn)) as Taken[])[0];
  return turn ? conn.tryRun(take) : conn.run(take);
}

/** Gates and state on one SQLite connection. */
export function sqliteGates(conn: SqliteConn): GateStore {
  return {
    readState(sessionId) {
      return conn.run(() => stateRow(conn, sessionId));
    },

    readStates(sessionIds) {
      return conn.run(() => {
        if (sessionIds.length === 0) return [];
        // json_each: one statement for any number of ids (no per-count statement to prepare).
        return (
          conn
            .stmt(`SELECT * FROM state WHERE session_id IN (SELECT value FROM json_each(?))`)
            .all(JSON.stringify(sessionIds)) as StateRow[]
        ).map(toState);
      });
    },

    async tryAcquireGate(name, holder, leaseMs, judge, stateOf, turn) {
      const fast = await takeFree(conn, name, holder, leaseMs, stateOf, turn);
      if (fast === LOCKED) return { acquired: false, holder: null, locked: true };
      if (!fast && turn) {
        // Not the caller's turn in the gate's line: said by a read, without the write lock (and
        // without proving a holder it could not take over anyway).
        const row = await conn.run(
          () =>
            conn.stmt(`SELECT *, ${NOW} AS now FROM gates WHERE name = ?`).get(name) as
              (GateRow & LineRow & { now: number }) | undefined,
        );
        if (row && !mayEnter(row, turn, row.now))
          return { acquired: false, holder: row.pid === null ? null : toGate(row) };
      }
      if (fast)
        return {
          acquired: true,
          token: fast.token,
          previous: null,
          previousWhy: '',
          state: stateFrom(fast, stateOf),
          owner: ownerFrom(fast, stateOf),
        };
      const judged = (now: number): GateAttempt => {
        const row = conn.stmt(`SELECT * FROM gates WHERE name = ?`).get(name) as (GateRow & LineRow) | undefined;
        let previous: GateRecord | null = null;
        let previousWhy = '';
        if (!row) {
          insertGate(conn, name, holder, leaseMs);
          return {
            acquired: true,
            token: 1,
            previous,
            previousWhy,
            state: stateOf === null ? null : stateRow(conn, stateOf),
            owner: ownerFrom(sessionStanding(conn, stateOf), stateOf),
          };
        }
        if (row.pid !== null) {
          const current = toGate(row);
          // A gate's lease is its holder's heartbeat: it matters only for holders on other hosts.
          const [verdict] = judge([{ owner: current.owner, lastSeenMs: current.leaseUntil - leaseMs }], now);
          if (verdict!.live) return { acquired: false, holder: current };
          previous = current;
          previousWhy = verdict!.why;
        }
        // A dead holder's gate is taken over by whoever the line lets in, like a free one.
        if (!mayEnter(row, turn, now)) return { acquired: false, holder: previous };
        const taken = (conn.stmt(TAKE_ANY).all(takeArgs(holder, leaseMs, name, stateOf, turn)) as Taken[])[0]!;
        return {
          acquired: true,
          token: taken.token,
          previous,
          previousWhy,
          state: stateFrom(taken, stateOf),
          owner: ownerFrom(taken, stateOf),
        };
      };
      if (!turn) return conn.immediate(judged);
      const slow = await conn.tryImmediate(() => judged(conn.clock()));
      return slow === LOCKED ? { acquired: false, holder: null, locked: true } : slow;
    },

    peekGate(name) {
      return conn.run(() => {
        const row = conn.stmt(`SELECT * FROM gates WHERE name = ? AND pid IS NOT NULL`).get(name) as
          GateRow | undefined;
        return row ? toGate(row) : null;
      });
    },

    renewGate(name, token, leaseMs) {
      return conn.run(
        () =>
          conn
            .stmt(`UPDATE gates SET lease_until = ${NOW} + ? WHERE name = ? AND token = ? AND pid IS NOT NULL`)
            .run(leaseMs, name, token).changes > 0,
      );
    },

    releaseGate(name, token, stateOf, change) {
      if (stateOf === null || change.kind === 'keep') {
        return conn.run(() => {
          if (conn.stmt(FREE).run(name, token).changes === 0) throw fenced(name, token);
        });
      }
      // Soon: the next holder of a contended gate waits for exactly this write.
      return conn.immediateSoon(() => {
        if (conn.stmt(FREE).run(name, token).changes === 0) throw fenced(name, token);
        writeState(conn, stateOf, change);
      });
    },

    async stepGate(name, holder, leaseMs, stateOf, step, turn) {
      // One BEGIN IMMEDIATE: the write lock is what keeps every other writer of this state out
      // while the step runs, exactly as the gate would; the gate row is only read (and written when
      // the step starts the caller's turn in the gate's line).
      const inStep = (): GateStepResult => {
        const ticket = turn?.ticket ?? null;
        // raw(): the row as an array; a row object costs a property definition per column in V8
        // (measurable on this path), and the object below has one fixed shape.
        const [gate, s_value, s_version, s_updated, s_session] = conn
          .stmt(STEP_READ)
          .raw(true)
          .get(ticket, ticket, name, stateOf, stateOf) as [
          number | null,
          string | null,
          number | null,
          number | null,
          number | null,
        ];
        if (gate === STEP_HELD) return { kind: 'busy' };
        if (gate === STEP_QUEUED) return { kind: 'queued' };
        const seen = { s_value, s_version, s_updated, s_session };
        const outcome = step(stateFrom(seen, stateOf), ownerFrom(seen, stateOf)!);
        if (outcome.kind === 'hold')
          return { kind: 'held', token: takeInTransaction(conn, name, holder, leaseMs, gate !== null, turn) };
        writeState(conn, stateOf, outcome.change);
        if (gate === STEP_SERVED) conn.stmt(SERVE_ONLY).run({ name, ...turnArgs(turn) });
        return { kind: 'applied' };
      };
      if (!turn) return conn.immediateNoClock(inStep);
      const done = await conn.tryImmediate(inStep);
      return done === LOCKED ? { kind: 'locked' } : done;
    },

    line: sqliteGateLine(conn),
  };
}
