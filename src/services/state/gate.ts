import { LanesError } from '../../core/errors.js';
import type {
  GateHolder,
  GateRecord,
  GateStepOutcome,
  StateChange,
  StateOwner,
  StateRecord,
} from '../../store/types.js';
import type { LanesContext } from '../context.js';
import { describeHolder } from '../describe.js';
import { hostId } from '../../core/process-identity.js';
import { waitFor } from '../wait.js';
import type { WaitOptions } from '../wait.js';
import { enterThroughLine } from './gate-line.js';
import { releaseInTurn, resumeKept } from './gate-keep.js';
import type { Enter } from './gate-line.js';

export interface HeldGate {
  token: number;
  /** The session's state, read in the same step that took the gate (or as this process left it, kept). */
  state: { value: string } | null;
  /** Whether that session is in the store and open, read in the same step (null: no session's state). */
  owner: StateOwner | null;
  /** Applies the change and releases, atomically and only if the gate is still ours (E_FENCED otherwise). */
  release(change: StateChange): Promise<void>;
}

/**
 * A cross-process gate stored as one row: the holder's identity and a token. A waiter takes it
 * over only when the holder is proven dead (same host: pid + start time + boot id; other hosts:
 * lease expired), so a SIGKILLed holder blocks for one poll, and a live one is never overtaken.
 * The gate is not a transaction held open: the holder's async work happens between two short ones.
 */
function blockedBy(g: GateRecord): string {
  const who = `held by ${g.sessionId ? `session ${g.sessionId}, ` : ''}${describeHolder(g.owner, g.acquiredAt, Date.now(), g.command)}`;
  // The one wait that never ends by itself: a mutate nested, after an await, in a plain (not
  // async) mutate function of the same session waits for its own outer mutate (state-frames.ts).
  return g.owner.pid === process.pid && g.owner.host === hostId()
    ? `${who} (this very process: if this call runs after an await inside a mutate function of the same session that is not declared async, it waits for itself; declare that function async)`
    : who;
}

/** A one-step change of a session's state (GateStore.stepGate): runs inside the store's write step. */
export type StepFn = (state: StateRecord | null, owner: StateOwner) => GateStepOutcome;

export type Entered =
  /** The step ran and its change was written in one store step; the gate was never held. */
  | { kind: 'applied' }
  /** The step went asynchronous: the gate is held from that same step on; release it when done. */
  | { kind: 'stepped'; gate: HeldGate }
  /** The gate is held; nothing ran yet. */
  | { kind: 'taken'; gate: HeldGate };

/** Takes the gate, waiting for it as long as `options` allow. */
export async function acquireGate(
  ctx: LanesContext,
  name: string,
  stateOf: string | null,
  what: string,
  options: WaitOptions = {},
): Promise<HeldGate> {
  return ((await enterGate(ctx, name, stateOf, what, options)) as { gate: HeldGate }).gate;
}

/**
 * Enters the gate: with `step` (SQLite), the step runs inside one write step of the store when the
 * gate is the caller's to enter; otherwise, and for a holder proven dead, the gate is taken. A store
 * with lines (SQLite) lets waiters in first come, first served (gate-line.ts); one without has them poll.
 */
export async function enterGate(
  ctx: LanesContext,
  name: string,
  stateOf: string | null,
  what: string,
  options: WaitOptions = {},
  step?: StepFn,
): Promise<Entered> {
  const holder = { owner: ctx.self(), sessionId: ctx.sessionId, command: ctx.selfCommand() };
  const started = Date.now();
  let entered: Entered;
  let lastHolder: GateRecord | null;
  const back = ctx.store.line && !options.signal?.aborted ? resumeKept(ctx, name) : null;
  if (back) {
    entered = { kind: 'taken', gate: holding(ctx, name, stateOf, back.token, back.state, back.owner) };
    lastHolder = null;
  } else if (ctx.store.line) {
    ({ value: entered, lastHolder } = await enterThroughLine(
      ctx,
      name,
      what,
      options,
      enterOnce(ctx, name, stateOf, holder, step),
      blockedBy,
    ));
  } else {
    // Without lines (PostgreSQL) the one-step path does not exist either: take the gate, then run.
    let token: number;
    let state: StateRecord | null;
    let owner: StateOwner | null;
    ({ token, state, owner, lastHolder } = await pollForGate(ctx, name, stateOf, what, holder, options));
    entered = { kind: 'taken', gate: holding(ctx, name, stateOf, token, state, owner) };
  }

  // A wait past a second is a decision worth seeing later (who waited on whom, and how long).
  const waited = Date.now() - started;
  if (waited > 1000)
    await ctx.journal.record({
      kind: 'gate.wait',
      subject: name,
      session: ctx.sessionId,
      details: { waitedMs: waited, heldBy: lastHolder?.sessionId ?? null, what },
    });

  if (options.signal?.aborted && entered.kind === 'taken') {
    await entered.gate.release({ kind: 'keep' });
    throw new LanesError('E_ABORTED', `stopped waiting for ${what}`, { hint: 'nothing was changed' });
  }
  return entered;
}

/** One attempt through the line: the step when there is one and nobody holds the gate, else a take. */
function enterOnce(
  ctx: LanesContext,
  name: string,
  stateOf: string | null,
  holder: GateHolder,
  step: StepFn | undefined,
): Enter<Entered> {
  return async (turn, takeOver) => {
    if (step && !takeOver && ctx.store.stepGate) {
      let seen: { state: StateRecord | null; owner: StateOwner } | undefined;
      const done = await ctx.store.stepGate(
        name,
        holder,
        ctx.gateLeaseMs,
        stateOf!,
        (state, owner) => {
          seen = { state, owner };
          return step(state, owner);
        },
        turn,
      );
      if (done.kind === 'applied') return { kind: 'in', value: { kind: 'applied' } };
      if (done.kind === 'held')
        return {
          kind: 'in',
          value: { kind: 'stepped', gate: holding(ctx, name, stateOf, done.token, seen!.state, seen!.owner) },
        };
      return done.kind === 'busy' ? { kind: 'held', holder: null } : done;
    }
    const got = await ctx.store.tryAcquireGate(name, holder, ctx.gateLeaseMs, ctx.judge, stateOf, turn);
    if (got.acquired)
      return {
        kind: 'in',
        value: { kind: 'taken', gate: holding(ctx, name, stateOf, got.token, got.state, got.owner) },
      };
    if (got.locked) return { kind: 'locked' };
    return got.holder ? { kind: 'held', holder: got.holder } : { kind: 'queued' };
  };
}

/** The waiting path of a store without lines: poll the gate, take it when free or its holder is dead. */
async function pollForGate(
  ctx: LanesContext,
  name: string,
  stateOf: string | null,
  what: string,
  holder: GateHolder,
  options: WaitOptions,
) {
  let tries = 0;
  // The last holder judged live, by token: re-proving the same holder on every poll would cost a
  // read of process facts (and, for other hosts, the store's clock) each time; 50 ms of trust keeps a
  // SIGKILLed holder's gate free again within one tick of that.
  let trusted = { token: -1, until: 0 };
  let lastHolder: GateRecord | null = null;
  const attempt = await waitFor(
    what,
    async () => {
      // After a first direct attempt, poll with a plain read: waiters must not take the store's write
      // lock over and over while the gate is busy.
      const seen = tries++ === 0 ? null : await ctx.store.peekGate(name);
      if (seen) {
        lastHolder = seen;
        const local = seen.owner.host === ctx.host;
        if (seen.token === trusted.token && Date.now() < trusted.until)
          return { done: false, blockedBy: () => blockedBy(seen) };
        const now = local ? 0 : await ctx.store.now();
        if (ctx.judge([{ owner: seen.owner, lastSeenMs: seen.leaseUntil - ctx.gateLeaseMs }], now)[0]!.live) {
          trusted = { token: seen.token, until: Date.now() + 50 };
          return { done: false, blockedBy: () => blockedBy(seen) };
        }
      }
      const got = await ctx.store.tryAcquireGate(name, holder, ctx.gateLeaseMs, ctx.judge, stateOf);
      if (got.acquired) return { done: true, value: got };
      // A store without lines always names the holder of a gate it did not give.
      const current = got.holder!;
      lastHolder = current;
      return { done: false, blockedBy: () => blockedBy(current) };
    },
    ctx.notice,
    options,
    'short',
  );
  return { ...attempt, lastHolder: lastHolder as GateRecord | null };
}

/** A gate this process holds: its lease renewed while the caller works, until it is released. */
function holding(
  ctx: LanesContext,
  name: string,
  stateOf: string | null,
  token: number,
  state: { value: string } | null,
  owner: StateOwner | null,
): HeldGate {
  // Renew the lease while the caller works, for holders judged by lease (other hosts, team mode).
  const renew = setInterval(
    () => {
      ctx.store.renewGate(name, token, ctx.gateLeaseMs).catch(() => undefined);
    },
    Math.max(50, Math.floor(ctx.gateLeaseMs / 3)),
  );
  renew.unref();
  return {
    token,
    state,
    owner,
    async release(change: StateChange) {
      clearInterval(renew);
      await releaseInTurn(ctx, name, token, stateOf, change, { value: state?.value ?? null, owner });
    },
  };
}
