import type { OwnerIdentity } from '../core/process-identity.js';
import type { OwnerJudge } from './types.js';

// Gates and the per-session state they guard, as the store holds them (both backends; the line in
// front of each gate on SQLite only).

export interface GateHolder {
  owner: OwnerIdentity;
  sessionId: string | null;
  command: string;
}

export interface GateRecord extends GateHolder {
  name: string;
  token: number;
  acquiredAt: number;
  leaseUntil: number;
}

export interface StateRecord {
  sessionId: string;
  /** JSON text. */
  value: string;
  version: number;
  updatedAt: number;
}

/** Whether the session whose state a gate guards is in the store, and open (read in the same step). */
export type StateOwner = 'open' | 'ended' | 'unknown';

export type GateAttempt =
  | {
      acquired: true;
      token: number;
      previous: GateRecord | null;
      previousWhy: string;
      state: StateRecord | null;
      /** null when the gate guards no session's state. */
      owner: StateOwner | null;
    }
  /**
   * holder null: the gate is free but not the caller's to take now (others wait in its line, see
   * GateLineStore); locked: another process held the store's write lock (a no-wait attempt).
   */
  | { acquired: false; holder: GateRecord | null; locked?: true };

/** What to do with a session's state when a gate is released. */
export type StateChange = { kind: 'keep' } | { kind: 'set'; value: string } | { kind: 'delete' };

/** What a one-step gated change decided, inside the store's write step (see GateStore.stepGate). */
export type GateStepOutcome = { kind: 'apply'; change: StateChange } | { kind: 'hold' };

export type GateStepResult =
  /** The gate was held by someone (live or not): nothing ran; take the waiting path. */
  | { kind: 'busy' }
  /** The gate is free, but others wait in its line and this is not the caller's turn: nothing ran. */
  | { kind: 'queued' }
  /** Another process held the store's write lock (a no-wait step): nothing ran; try again soon. */
  | { kind: 'locked' }
  /** The step ran and its change was written; the gate was never taken. */
  | { kind: 'applied' }
  /** The step asked to hold the gate: it is taken with this token, to be released with releaseGate. */
  | { kind: 'held'; token: number };

/**
 * Where a caller stands in a gate's line (GateLineStore), for a take or a step. Without a ticket the
 * caller enters only while nobody waits in line. With one, it enters when its ticket is first in
 * line (serving it: its turn starts, due to end quantumMs later, and the next in line has graceMs
 * after that to use its own), or when its ticket is the one being served and the next in line
 * does not claim the turn at the moment. A store without lines ignores it. Attempts with a turn never wait for
 * another process' write lock (`locked` instead).
 */
export interface GateTurn {
  ticket: number | null;
  quantumMs: number;
  graceMs: number;
}

/** A gate's line as a waiter reads it (all times on the store's clock). */
export interface GateLine {
  /** The holder, when the gate is held. */
  held: GateRecord | null;
  /** The last ticket issued, and the last served (or skipped): issued > served while anyone waits. */
  issued: number;
  served: number;
  /** When the running turn is due to end (the next in line claims it then); 0: nobody's turn. */
  turnEnd: number;
  /** Until when the next in line claims the turn (its owner enters no more meanwhile). */
  claimUntil: number;
  /** Until when the next ticket keeps its place; past it, with the gate free, anyone may skip it. */
  headDeadline: number;
  now: number;
}

/**
 * A FIFO line in front of each gate, for a store whose processes share one host (SQLite): a gate
 * passes from one process to another in ticket order. Each turn lasts about a quantum: its owner
 * may enter again and again (as a lock's last holder would anyway) until the next in line, once
 * the quantum is over, claims the turn and enters; so no waiter waits longer than the turns of
 * those before it, and the gate never idles for a waiter that is slow to wake (a claim it does not
 * renew lapses, and the owner goes on). The gate's own holder and the
 * store's write lock still decide who is inside; the line only decides who may go in next. Every
 * write is no-wait (`locked` when another process holds the store's write lock).
 */
export interface GateLineStore {
  /** A ticket at the end of the line (made free with token 0 when the gate has no row yet). */
  joinGateLine(name: string, graceMs: number): Promise<{ ticket: number; line: GateLine } | 'locked'>;
  readGateLine(name: string): Promise<GateLine>;
  /** The first in line keeps its place while the gate is held (its deadline moves to now + graceMs). */
  keepGateHead(name: string, ticket: number, graceMs: number): Promise<boolean | 'locked'>;
  /**
   * The first in line claims the running turn until now + leaseMs: its owner enters no more
   * meanwhile (the gate stays with its holder). Renewed while it waits; lapses if it stops.
   */
  claimGateTurn(name: string, ticket: number, leaseMs: number): Promise<boolean | 'locked'>;
  /**
   * Releases a gate held under `token` as releaseGate does (the change written, E_FENCED when it was
   * taken over), except while `ticket`'s turn runs, is not due to end yet and others wait: then the
   * gate stays held (true), so that the same process enters again within its turn without a take.
   */
  releaseOrKeep(
    name: string,
    token: number,
    stateOf: string | null,
    change: StateChange,
    ticket: number,
  ): Promise<boolean>;
  /**
   * Skips `ticket` when it is first in line and either its deadline passed (its waiter died, or
   * stopped waiting) or `own` (the caller's own ticket, when it stops waiting).
   */
  skipGateHead(name: string, ticket: number, graceMs: number, own: boolean): Promise<boolean | 'locked'>;
}

/** Gates and the per-session state they guard (a state change is written as its gate is released). */
export interface GateStore {
  /**
   * Non-blocking attempt; takes over a gate whose holder the judge finds dead. Reads the session's
   * state in the same step. With a turn (a store with lines), the line decides too (GateTurn).
   */
  tryAcquireGate(
    name: string,
    holder: GateHolder,
    leaseMs: number,
    judge: OwnerJudge,
    stateOf: string | null,
    turn?: GateTurn,
  ): Promise<GateAttempt>;
  peekGate(name: string): Promise<GateRecord | null>;
  renewGate(name: string, token: number, leaseMs: number): Promise<boolean>;
  /** Applies the state change and releases the gate atomically, only if `token` still holds it (else E_FENCED). */
  releaseGate(name: string, token: number, stateOf: string | null, change: StateChange): Promise<void>;
  /**
   * Optional: only a store whose write step is local and synchronous has it (SQLite). When the gate
   * is free, runs `step` on the session's state inside one write transaction and writes the change
   * it returns there, so an uncontended state change is one write instead of two (take the gate,
   * then write and free it). `hold` takes the gate in that same transaction instead: the caller's
   * work goes on asynchronously and ends with releaseGate. A step that throws writes nothing.
   * `step` runs with the store's write lock held: it must be short and must not wait.
   */
  stepGate?(
    name: string,
    holder: GateHolder,
    leaseMs: number,
    stateOf: string,
    step: (state: StateRecord | null, owner: StateOwner) => GateStepOutcome,
    turn?: GateTurn,
  ): Promise<GateStepResult>;
  /** Optional: the FIFO line in front of each gate (SQLite). Without it waiters poll the gate. */
  line?: GateLineStore;
  readState(sessionId: string): Promise<StateRecord | null>;
  /** The states of several sessions in one read (those without state are left out). */
  readStates(sessionIds: string[]): Promise<StateRecord[]>;
}
