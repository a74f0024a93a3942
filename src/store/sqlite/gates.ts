import { fenced } from '../shared/errors.js';
import { NOW } from './conn.js';
import type { SqliteConn } from './conn.js';
import { ownerFrom, stateFrom, toGate, toState } from '../shared/rows.js';
import type { GateRow, StateRow, Taken } from '../shared/rows.js';
import type {
  GateAttempt,
  GateHolder,
  GateRecord,
  GateStepResult,
  GateStore,
  StateChange,
  StateRecord,
} from '../types.js';

// A gate is one row that outlives its holders: `pid IS NULL` means free, and `token` only grows,
// so every acquisition (including a takeover) gets a higher token than any before it. Taking a
// free gate is one UPDATE (atomic on its own); only a busy gate needs a transaction to judge its
// holder. This keeps an uncontended mutate() at two short statements.

// Taking a free gate also reads the session's state in the same statement (one round trip less
// on the hot path of every mutate()).
const TAKE_FREE = `UPDATE gates SET token = token + 1, session_id = @session, host = @host, boot_id = @boot, pid = @pid,
  start_time = @start, command = @command, acquired_at = ${NOW}, lease_until = ${NOW} + @lease WHERE name = @name AND pid IS NULL
  RETURNING token, (SELECT value FROM state WHERE session_id = @stateOf) AS s_value,
    (SELECT version FROM state WHERE session_id = @stateOf) AS s_version, (SELECT updated_at FROM state WHERE session_id = @stateOf) AS s_updated,
    (SELECT CASE WHEN ended_at IS NULL THEN 1 ELSE 2 END FROM sessions WHERE id = @stateOf) AS s_session`;

function takeArgs(h: GateHolder, leaseMs: number, name: string, stateOf: string | null) {
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

const FREE = `UPDATE gates SET pid = NULL, session_id = NULL, command = NULL WHERE name = ? AND token = ? AND pid IS NOT NULL`;

// What a one-step change reads first, in one statement: whether the gate exists and is held, and
// the session's state and standing (the same columns a take returns).
// Positional parameters: binding them is measurably cheaper than named ones on this hot path.
// Read raw only (stepGate sets raw() on the cached statement, which keeps it): columns in this order.
const STEP_READ = `SELECT (SELECT pid IS NOT NULL FROM gates WHERE name = ?) AS g_held,
    s.value AS s_value, s.version AS s_version, s.updated_at AS s_updated,
    (SELECT CASE WHEN ended_at IS NULL THEN 1 ELSE 2 END FROM sessions WHERE id = ?) AS s_session
  FROM (SELECT 1) LEFT JOIN state s ON s.session_id = ?`;

// Module constants, not templates built per call: the statement cache is keyed by the text, and a
// text built anew on every write is hashed anew on every lookup (measurable on the mutate path).
// INSERT_GATE below likewise.
const DELETE_STATE = `DELETE FROM state WHERE session_id = ?`;
const UPSERT_STATE = `INSERT INTO state (session_id, value, version, updated_at) VALUES (?, ?, 1, ${NOW})
     ON CONFLICT (session_id) DO UPDATE SET value = excluded.value, version = state.version + 1, updated_at = excluded.updated_at`;

/** Writes a state change in the current transaction. */
function writeState(conn: SqliteConn, stateOf: string, change: StateChange): void {
  if (change.kind === 'keep') return;
  if (change.kind === 'delete') conn.stmt(DELETE_STATE).run(stateOf);
  else conn.stmt(UPSERT_STATE).run(stateOf, change.value);
}

const INSERT_GATE = `INSERT INTO gates (name, token, session_id, host, boot_id, pid, start_time, command, acquired_at, lease_until) VALUES (?, 1, ?, ?, ?, ?, ?, ?, ${NOW}, ${NOW} + ?)`;

/** A gate's first row, held by `holder` with token 1, in the current transaction. */
function insertGate(conn: SqliteConn, name: string, holder: GateHolder, leaseMs: number): void {
  conn.stmt(INSERT_GATE).run(name, ...holderArgs(holder), leaseMs);
}

/** Takes a free (or missing) gate inside the current transaction; returns the new token. */
function takeInTransaction(
  conn: SqliteConn,
  name: string,
  holder: GateHolder,
  leaseMs: number,
  exists: boolean,
): number {
  if (!exists) {
    insertGate(conn, name, holder, leaseMs);
    return 1;
  }
  return (conn.stmt(TAKE_FREE).all(takeArgs(holder, leaseMs, name, null)) as Taken[])[0]!.token;
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

    async tryAcquireGate(name, holder, leaseMs, judge, stateOf) {
      // all(), never get(): in autocommit a RETURNING statement commits when it runs to its end, and
      // get() stops at the first row and resets, which drops a failed commit (a full disk) silently:
      // the caller would hold a token that was never written, and its release would look fenced.
      const fast = await conn.run(
        () => (conn.stmt(TAKE_FREE).all(takeArgs(holder, leaseMs, name, stateOf)) as Taken[])[0],
      );
      if (fast)
        return {
          acquired: true,
          token: fast.token,
          previous: null,
          previousWhy: '',
          state: stateFrom(fast, stateOf),
          owner: ownerFrom(fast, stateOf),
        };
      return conn.immediate((now): GateAttempt => {
        const row = conn.stmt(`SELECT * FROM gates WHERE name = ?`).get(name) as GateRow | undefined;
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
        const taken = conn
          .stmt(TAKE_FREE.replace('AND pid IS NULL', ''))
          .get(takeArgs(holder, leaseMs, name, stateOf)) as Taken;
        return {
          acquired: true,
          token: taken.token,
          previous,
          previousWhy,
          state: stateFrom(taken, stateOf),
          owner: ownerFrom(taken, stateOf),
        };
      });
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
      return conn.immediateNoClock(() => {
        if (conn.stmt(FREE).run(name, token).changes === 0) throw fenced(name, token);
        writeState(conn, stateOf, change);
      });
    },

    stepGate(name, holder, leaseMs, stateOf, step) {
      // One BEGIN IMMEDIATE: the write lock is what keeps every other writer of this state out
      // while the step runs, exactly as the gate would; the gate row is only read.
      return conn.immediateNoClock((): GateStepResult => {
        // raw(): the row as an array; a row object costs a property definition per column in V8
        // (measurable on this path), and the object below has one fixed shape.
        const [held, s_value, s_version, s_updated, s_session] = conn
          .stmt(STEP_READ)
          .raw(true)
          .get(name, stateOf, stateOf) as [number | null, string | null, number | null, number | null, number | null];
        if (held) return { kind: 'busy' };
        const seen = { s_value, s_version, s_updated, s_session };
        const outcome = step(stateFrom(seen, stateOf), ownerFrom(seen, stateOf)!);
        if (outcome.kind === 'hold')
          return { kind: 'held', token: takeInTransaction(conn, name, holder, leaseMs, held !== null) };
        writeState(conn, stateOf, outcome.change);
        return { kind: 'applied' };
      });
    },
  };
}
