import type { StateChange, StateOwner } from '../../store/types.js';
import type { LanesContext } from '../context.js';
import { servingTicket } from './gate-line.js';

// A gate kept through its holder's turn (GateLineStore.releaseOrKeep). While others wait in a
// gate's line nobody but the turn's owner may enter it anyway, so releasing the gate only for the
// same process to take it again in its next mutate costs two writes for nothing: the owner keeps
// it instead, and its next mutate enters again without a word to the store (nobody else can have
// written the state it guards: the state is only written by the gate's holder), so a mutate of the
// gate costs one write, as the one-step path does. It is kept only until the turn is due to end
// or claimed: the release that finds it so frees it, so the next in line finds it free unless the
// owner is inside a mutate (at most one mutate after the claim). Nor does it outlive the process'
// current run of work: the event loop's next turn frees it, and so does close().

interface Kept {
  token: number;
  ticket: number;
  /** The state as this process' last mutate left it (null: none), and the session's standing as last read. */
  value: string | null;
  owner: StateOwner | null;
  /** A mutate of this process is inside (entered again, not released yet). */
  inUse: boolean;
  /** A free on the event loop's next turn is scheduled. */
  scheduled: boolean;
}

const kept = new WeakMap<LanesContext, Map<string, Kept>>();

function keptOf(ctx: LanesContext): Map<string, Kept> {
  let mine = kept.get(ctx);
  if (!mine) kept.set(ctx, (mine = new Map()));
  return mine;
}

/**
 * Releases a gate: kept while this process' turn in its line runs and others wait, else freed.
 * `seen`: the state and standing the mutate started from.
 */
export async function releaseInTurn(
  ctx: LanesContext,
  name: string,
  token: number,
  stateOf: string | null,
  change: StateChange,
  seen: { value: string | null; owner: StateOwner | null },
): Promise<void> {
  const line = ctx.store.line;
  const ticket = line && servingTicket(ctx, name);
  if (!line || ticket === undefined) return ctx.store.releaseGate(name, token, stateOf, change);
  const mine = keptOf(ctx);
  let keep: boolean;
  try {
    keep = await line.releaseOrKeep(name, token, stateOf, change, ticket);
  } catch (e) {
    mine.delete(name);
    throw e;
  }
  if (!keep) {
    mine.delete(name);
    return;
  }
  const value = change.kind === 'set' ? change.value : change.kind === 'delete' ? null : seen.value;
  const entry = mine.get(name);
  if (entry?.token === token) Object.assign(entry, { value, owner: seen.owner, inUse: false });
  else mine.set(name, { token, ticket, value, owner: seen.owner, inUse: false, scheduled: false });
  schedule(ctx, name, mine.get(name)!);
}

function schedule(ctx: LanesContext, name: string, entry: Kept): void {
  if (entry.scheduled) return;
  entry.scheduled = true;
  setImmediate(() => {
    entry.scheduled = false;
    // Entered again meanwhile: its release schedules the next free.
    if (!entry.inUse) void free(ctx, name, entry.token);
  });
}

async function free(ctx: LanesContext, name: string, token: number): Promise<void> {
  const mine = keptOf(ctx);
  if (mine.get(name)?.token !== token) return;
  mine.delete(name);
  // Fenced (taken over as if dead): nothing left to free.
  await ctx.store.releaseGate(name, token, null, { kind: 'keep' }).catch(() => undefined);
}

/** A gate this process kept, entered again: its token, and the state and standing it was left with. */
export function resumeKept(
  ctx: LanesContext,
  name: string,
): { token: number; state: { value: string } | null; owner: StateOwner | null } | null {
  const entry = kept.get(ctx)?.get(name);
  if (!entry || entry.inUse) return null;
  entry.inUse = true;
  return { token: entry.token, state: entry.value === null ? null : { value: entry.value }, owner: entry.owner };
}

/** Frees every gate this process keeps (close()). */
export async function freeKept(ctx: LanesContext): Promise<void> {
  const mine = kept.get(ctx);
  if (!mine) return;
  await Promise.all([...mine].filter(([, e]) => !e.inUse).map(([name, e]) => free(ctx, name, e.token)));
}
