import { LanesError } from '../core/errors.js';
import type { StateChange, StateRecord } from '../store/types.js';
import type { LanesContext } from './context.js';
import { describeHolder } from './describe.js';
import { waitFor } from './wait.js';
import type { WaitOptions } from './wait.js';

export interface HeldGate {
  token: number;
  /** The session's state, read in the same step that took the gate. */
  state: StateRecord | null;
  /** Applies the change and releases, atomically and only if the gate is still ours (E_FENCED otherwise). */
  release(change: StateChange): Promise<void>;
}

/**
 * A cross-process gate stored as one row: the holder's identity and a token. A waiter takes it
 * over only when the holder is proven dead (same host: pid + start time + boot id; other hosts:
 * lease expired), so a SIGKILLed holder blocks for one poll, and a live one is never overtaken.
 * The gate is not a transaction held open: the holder's async work happens between two short ones.
 */
export async function acquireGate(ctx: LanesContext, name: string, stateOf: string | null, what: string, options: WaitOptions = {}): Promise<HeldGate> {
  const holder = { owner: ctx.self(), sessionId: ctx.sessionId, command: ctx.selfCommand() };
  let blocker = '';
  let tries = 0;
  const attempt = await waitFor(what, async () => {
    // After a first direct attempt, poll with a plain read: waiters must not take the store's write
    // lock over and over while the gate is busy.
    const seen = tries++ === 0 ? null : await ctx.store.peekGate(name);
    if (seen) {
      const now = await ctx.store.now();
      if (ctx.judge(seen.owner, seen.leaseUntil - ctx.gateLeaseMs, now).live) {
        blocker = `held by ${seen.sessionId ? `session ${seen.sessionId}, ` : ''}${describeHolder(seen.owner, seen.acquiredAt, now, seen.command)}`;
        return { done: false, blockedBy: () => blocker };
      }
    }
    const got = await ctx.store.tryAcquireGate(name, holder, ctx.gateLeaseMs, ctx.judge, stateOf);
    if (got.acquired) return { done: true, value: got };
    const now = await ctx.store.now();
    blocker = `held by ${got.holder.sessionId ? `session ${got.holder.sessionId}, ` : ''}${describeHolder(got.holder.owner, got.holder.acquiredAt, now, got.holder.command)}`;
    return { done: false, blockedBy: () => blocker };
  }, ctx.notice, options, 'short');

  // Renew the lease while the caller works, for holders judged by lease (other hosts, team mode).
  const renew = setInterval(() => {
    ctx.store.renewGate(name, attempt.token, ctx.gateLeaseMs).catch(() => undefined);
  }, Math.max(50, Math.floor(ctx.gateLeaseMs / 3)));
  renew.unref();

  if (options.signal?.aborted) {
    clearInterval(renew);
    await ctx.store.releaseGate(name, attempt.token, null, { kind: 'keep' });
    throw new LanesError('E_ABORTED', `stopped waiting for ${what}`, { hint: 'nothing was changed' });
  }

  return {
    token: attempt.token,
    state: attempt.state,
    async release(change: StateChange) {
      clearInterval(renew);
      await ctx.store.releaseGate(name, attempt.token, stateOf, change);
    },
  };
}
