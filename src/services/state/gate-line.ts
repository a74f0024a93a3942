import type { GateLine, GateLineStore, GateRecord, GateTurn } from '../../store/types.js';
import type { LanesContext } from '../context.js';
import { pauseBriefly, waitFor } from '../wait.js';
import type { WaitOptions } from '../wait.js';

// How a contended gate passes between the processes of one store (GateLineStore, in types.ts).
// A turn: once a process got the gate from the line, it may go on entering it until the next in
// line claims the turn, which that one does once the turn has run this long (a hand-over costs a
// wake-up; a gate entered again by the process that just left it costs none). Nobody waits longer
// than the turns before it in the line: at K contenders, about K - 1 turns. bench/gate.mjs measures.
export const TURN_MS = 5;
// How long the first in line may take to use its turn before those behind skip it (it died, or
// stopped waiting without saying so). Must exceed a turn (a deadline further ahead than two graces
// is read as a clock stepped back).
export const GRACE_MS = 100;
// Pauses between no-wait attempts that found another process writing (a step takes ~20 µs).
const LOCKED_PAUSES_MS = [0.02, 0.05, 0.1, 0.2, 0.5];
// Pauses of the first in line while the gate is held: a gate changing hands is held for tens of
// µs, a long hold (an async mutate at work, a landing) for longer: poll less and less often.
const HELD_PAUSES_MS = [0.02, 0.05, 0.1, 0.2, 0.5, 1, 1, 2];
const HELD_PAUSE_MAX_MS = 4;
const BEHIND_MAX_MS = 20;

/** One attempt to enter: in (with what it got), held by a live holder, not the caller's turn, or the store busy writing. */
export type Entry<T> =
  { kind: 'in'; value: T } | { kind: 'held'; holder: GateRecord | null } | { kind: 'queued' } | { kind: 'locked' };

/** Tries to enter the gate as `turn` stands; takeOver: the gate is held by a holder proven dead. */
export type Enter<T> = (turn: GateTurn, takeOver: boolean) => Promise<Entry<T>>;

/** The ticket each gate of each store is serving this process under: its turn may still be running. */
const serving = new Map<string, number>();

/** The ticket whose turn this process may still be running at the gate (entered through its line). */
export function servingTicket(ctx: LanesContext, name: string): number | undefined {
  return serving.get(`${ctx.store.info.location}\0${name}`);
}

function turnOf(ticket: number | null): GateTurn {
  return { ticket, quantumMs: TURN_MS, graceMs: GRACE_MS };
}

/** An attempt again after brief pauses while another process writes; 'locked' if it still does. */
async function patiently<T>(enter: () => Promise<Entry<T>>): Promise<Entry<T>> {
  let got = await enter();
  for (const ms of LOCKED_PAUSES_MS) {
    if (got.kind !== 'locked') return got;
    pauseBriefly(ms);
    got = await enter();
  }
  return got;
}

function lineBlocked(ahead: number): string {
  return ahead > 0
    ? `${ahead} waiting before this one in the gate's line`
    : 'first in the gate’s line, for the turn running now to end';
}

/**
 * Enters a gate through its line: at once while nobody waits (or while this process' turn runs),
 * else with a ticket, in order. Waits as waitFor does (silent, then one notice; the signal and
 * the deadline); a ticket left behind (an error, a cancel) is given up on the way out.
 */
export async function enterThroughLine<T>(
  ctx: LanesContext,
  name: string,
  what: string,
  options: WaitOptions,
  enter: Enter<T>,
  describe: (holder: GateRecord) => string,
): Promise<{ value: T; lastHolder: GateRecord | null }> {
  const line = ctx.store.line!;
  const key = `${ctx.store.info.location}\0${name}`;
  let lastHolder: GateRecord | null = null;
  if (!options.signal?.aborted) {
    const first = await patiently(() => enter(turnOf(serving.get(key) ?? null), false));
    if (first.kind === 'in') return { value: first.value, lastHolder };
    if (first.kind === 'held') lastHolder = first.holder ?? lastHolder;
  }
  serving.delete(key);

  let ticket = 0;
  let heldPause = 0;
  let heldToken = -1;
  // The last holder process judged live, trusted for 50 ms (as the waiting path always did):
  // re-proving it on every poll would read its process facts each time, and a turn's owner takes
  // the gate with a new token on every entry.
  let trusted = { who: '', until: 0 };
  const blocked = (text: string) => () => text;
  try {
    const value = await waitFor(
      what,
      async () => {
        let view: GateLine;
        if (ticket === 0) {
          const joined = await line.joinGateLine(name, GRACE_MS);
          if (joined === 'locked') return { done: false, blockedBy: blocked('the store is busy'), retryInMs: 0.2 };
          ticket = joined.ticket;
          view = joined.line;
        } else view = await line.readGateLine(name);
        if (view.served >= ticket) {
          // Skipped (this process did not use its turn in time): to the end of the line again.
          ticket = 0;
          return { done: false, blockedBy: blocked('skipped in the line'), retryInMs: 0 };
        }
        const ahead = ticket - view.served - 1;
        if (ahead > 0) return behind(line, name, view, ahead);
        // First in line. A holder proven dead is taken over at once, whatever the turn.
        const holder = view.held;
        if (holder) {
          lastHolder = holder;
          if (holder.token !== heldToken) [heldToken, heldPause] = [holder.token, 0];
          if (!live(ctx, holder, view.now, trusted, (who) => (trusted = { who, until: Date.now() + 50 }))) {
            const got = await patiently(() => enter(turnOf(ticket), true));
            if (got.kind === 'in') return served(got.value);
          }
        }
        // Let the running turn have its quantum (a clock stepped back cannot stretch it), then claim it.
        const untilTurnEnds = view.turnEnd > 0 ? Math.min(view.turnEnd - view.now, TURN_MS) : 0;
        if (untilTurnEnds > 0) return { done: false, blockedBy: blocked(lineBlocked(0)), retryInMs: untilTurnEnds };
        if (holder) {
          // The turn's owner (or a holder at long work) keeps the gate until it leaves: end the turn
          // so that it does not enter again, and keep this place in line while waiting.
          if (view.turnEnd > 0) await line.claimGateTurn(name, ticket);
          else if (view.headDeadline - view.now < GRACE_MS / 2) await line.keepGateHead(name, ticket, GRACE_MS);
          return {
            done: false,
            blockedBy: () => describe(holder),
            retryInMs: HELD_PAUSES_MS[heldPause++] ?? HELD_PAUSE_MAX_MS,
          };
        }
        const got = await patiently(() => enter(turnOf(ticket), false));
        if (got.kind === 'in') return served(got.value);
        if (got.kind === 'held') lastHolder = got.holder ?? lastHolder;
        // Still another process writing (a turn's owner between two entries): end its turn.
        if (got.kind === 'locked' && view.turnEnd > 0) await line.claimGateTurn(name, ticket);
        return { done: false, blockedBy: blocked(lineBlocked(0)), retryInMs: 0.1 };
      },
      ctx.notice,
      options,
      'short',
    );
    return { value, lastHolder };
  } catch (e) {
    if (ticket !== 0) await line.skipGateHead(name, ticket, GRACE_MS, true).catch(() => undefined);
    throw e;
  }

  function served(value: T) {
    serving.set(key, ticket);
    ticket = 0;
    return { done: true as const, value };
  }
}

/** A waiter with others before it: skips a first in line gone past its deadline, sleeps until about its turn. */
async function behind(line: GateLineStore, name: string, view: GateLine, ahead: number) {
  // A deadline further ahead than two graces is a clock stepped back (the store re-checks both).
  const stale = view.headDeadline < view.now || view.headDeadline > view.now + 2 * GRACE_MS;
  if (stale) await line.skipGateHead(name, view.served + 1, GRACE_MS, false);
  const untilBefore = Math.max(0, Math.min(view.turnEnd - view.now, TURN_MS)) + (ahead - 1) * TURN_MS;
  return {
    done: false as const,
    blockedBy: () => lineBlocked(ahead),
    retryInMs: Math.min(BEHIND_MAX_MS, Math.max(1, untilBefore)),
  };
}

/** Whether a holder is alive (same host: its process facts; other hosts: its lease on the store's clock). */
function live(
  ctx: LanesContext,
  holder: GateRecord,
  now: number,
  trusted: { who: string; until: number },
  trust: (who: string) => void,
): boolean {
  const who = processOf(holder);
  if (who === trusted.who && Date.now() < trusted.until) return true;
  const proven = ctx.judge([{ owner: holder.owner, lastSeenMs: holder.leaseUntil - ctx.gateLeaseMs }], now)[0]!.live;
  // Trusted from this proof on, never from a trusted answer: a dead holder is found within 50 ms.
  if (proven) trust(who);
  return proven;
}

function processOf(holder: GateRecord): string {
  const o = holder.owner;
  return `${o.host}\0${o.bootId}\0${o.pid}\0${o.startTime}`;
}
