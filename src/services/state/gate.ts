import { LanesError } from '../../core/errors.js';
import type { GateRecord, GateStepOutcome, StateChange, StateOwner, StateRecord } from '../../store/types.js';
import type { LanesContext } from '../context.js';
import { describeHolder } from '../describe.js';
import { hostId } from '../../core/process-identity.js';
import { waitFor } from '../wait.js';
import type { WaitOptions } from '../wait.js';

export interface HeldGate {
  token: number;
  /** The session's state, read in the same step that took the gate. */
  state: StateRecord | null;
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

export async function acquireGate(
  ctx: LanesContext,
  name: string,
  stateOf: string | null,
  what: string,
  options: WaitOptions = {},
): Promise<HeldGate> {
  const holder = { owner: ctx.self(), sessionId: ctx.sessionId, command: ctx.selfCommand() };
  let tries = 0;
  // The last holder judged live, by token: re-proving the same holder on every poll would cost a
  // read of process facts (and, for other hosts, the store's clock) each time; 50 ms of trust keeps a
  // SIGKILLed holder's gate free again within one tick of that.
  let trusted = { token: -1, until: 0 };
  const started = Date.now();
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
      lastHolder = got.holder;
      return { done: false, blockedBy: () => blockedBy(got.holder) };
    },
    ctx.notice,
    options,
    'short',
  );

  // A wait past a second is a decision worth seeing later (who waited on whom, and how long).
  const waited = Date.now() - started;
  if (waited > 1000)
    await ctx.journal.record({
      kind: 'gate.wait',
      subject: name,
      session: ctx.sessionId,
      details: { waitedMs: waited, heldBy: (lastHolder as GateRecord | null)?.sessionId ?? null, what },
    });

  if (options.signal?.aborted) {
    await ctx.store.releaseGate(name, attempt.token, null, { kind: 'keep' });
    throw new LanesError('E_ABORTED', `stopped waiting for ${what}`, { hint: 'nothing was changed' });
  }
  return holding(ctx, name, stateOf, attempt.token, attempt.state, attempt.owner);
}

/** A gate this process holds: its lease renewed while the caller works, until it is released. */
function holding(
  ctx: LanesContext,
  name: string,
  stateOf: string | null,
  token: number,
  state: StateRecord | null,
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
      await ctx.store.releaseGate(name, token, stateOf, change);
    },
  };
}

export type GateStep =
  | { kind: 'busy' }
  | { kind: 'applied' }
  /** The step went asynchronous: the gate is held from the same write step on; release it when done. */
  | { kind: 'held'; gate: HeldGate };

/**
 * A gated change of a session's state in one write step of the store, when the store can (SQLite)
 * and the gate is free: `step` runs inside that step (no waiting, no other writer in between).
 * null: the store has no one-step path; busy: the gate is held. Either way the caller takes the
 * waiting path (acquireGate), which judges the holder and waits.
 */
export async function stepGate(
  ctx: LanesContext,
  name: string,
  stateOf: string,
  step: (state: StateRecord | null, owner: StateOwner) => GateStepOutcome,
): Promise<GateStep | null> {
  if (!ctx.store.stepGate) return null;
  const holder = { owner: ctx.self(), sessionId: ctx.sessionId, command: ctx.selfCommand() };
  let seen: { state: StateRecord | null; owner: StateOwner } | undefined;
  const done = await ctx.store.stepGate(name, holder, ctx.gateLeaseMs, stateOf, (state, owner) => {
    seen = { state, owner };
    return step(state, owner);
  });
  if (done.kind !== 'held') return done;
  return { kind: 'held', gate: holding(ctx, name, stateOf, done.token, seen!.state, seen!.owner) };
}
