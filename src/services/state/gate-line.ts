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
// The first in line claims the turn for this long beyond its next poll: long enough to be renewed
// by a waiter that is running, short enough that the owner goes on when the waiter is not.
const CLAIM_MARGIN_MS = 1;
// Pauses of a turn's owner while the next in line claims the turn (it is about to enter).
const OWNER_PAUSES_MS = [0.02, 0.05, 0.1, 0.2, 0.5, 1];
// Pauses of the first in line while the gate is held, once its turn came: a gate changing hands is
// held for tens of µs, a long hold (an async mutate at work, a landing) for longer: poll less and
// less often.
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
    : "first in the gate's line, for the turn running now to end";
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
    const own = serving.get(key) ?? null;
    let first = await patiently(() => enter(turnOf(own), false));
    if (first.kind === 'queued' && own !== null) first = (await goOn(line, name, own, enter)) ?? first;
    if (first.kind === 'in') return { value: first.value, lastHolder };
    if (first.kind === 'held') lastHolder = first.holder ?? lastHolder;
  }
  serving.delete(key);

  let ticket = 0;
  // Polls of a held gate since this waiter's turn came: they slow down whoever holds it, never
  // start over (a turn's owner takes the gate anew for each mutate; a waiter polling it at full
  // speed again each time would take the CPU the owner needs to finish).
  let heldPause = 0;
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
        let kept = false;
        if (holder) {
          lastHolder = holder;
          // A judge not answered from trust reads the holder's process facts: a `ps` on macOS, tens
          // of ms on a loaded machine, during which this process polls nothing. Its place in line
          // is kept on both sides of it, or those behind would skip a waiter that is alive.
          const judging = !isTrusted(holder, trusted);
          if (judging) await keepHead();
          const alive = live(ctx, holder, view.now, trusted, (who) => (trusted = { who, until: Date.now() + 50 }));
          if (judging) kept = await keepHead();
          if (!alive) {
            const got = await patiently(() => enter(turnOf(ticket), true));
            if (got.kind === 'in') return served(got.value);
          }
        }
        // Let the running turn have its quantum (a clock stepped back cannot stretch it), then claim it.
        const untilTurnEnds = view.turnEnd > 0 ? Math.min(view.turnEnd - view.now, TURN_MS) : 0;
        if (untilTurnEnds > 0) return { done: false, blockedBy: blocked(lineBlocked(0)), retryInMs: untilTurnEnds };
        if (holder) {
          // Held: by the turn's owner inside a mutate, or a holder at long work. Claim the turn so
          // that its owner does not enter again once out, for as long as this waiter polls; and
          // keep this place in line meanwhile.
          const pause = HELD_PAUSES_MS[heldPause++] ?? HELD_PAUSE_MAX_MS;
          await claim(view, pause);
          if (!kept && view.headDeadline - view.now < GRACE_MS / 2) await keepHead();
          return { done: false, blockedBy: () => describe(holder), retryInMs: pause };
        }
        const got = await patiently(() => enter(turnOf(ticket), false));
        if (got.kind === 'in') return served(got.value);
        if (got.kind === 'held') lastHolder = got.holder ?? lastHolder;
        // Still another process writing (a turn's owner between two entries): claim its turn.
        if (got.kind === 'locked') await claim(view, 0.1);
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

  /** Moves this first in line's deadline a grace from now (a moment's retries while another process writes). */
  async function keepHead(): Promise<boolean> {
    let done = await line.keepGateHead(name, ticket, GRACE_MS);
    for (const ms of LOCKED_PAUSES_MS) {
      if (done !== 'locked') return done;
      pauseBriefly(ms);
      done = await line.keepGateHead(name, ticket, GRACE_MS);
    }
    return done === true;
  }

  /** Claims the running turn until after the next poll, `pause` from now (renewed before it lapses). */
  async function claim(view: GateLine, pause: number): Promise<void> {
    if (view.turnEnd <= 0) return; // nobody's turn to claim
    if (view.claimUntil - view.now > pause) return;
    await line.claimGateTurn(name, ticket, Math.ceil(pause) + CLAIM_MARGIN_MS);
  }

  function served(value: T) {
    serving.set(key, ticket);
    ticket = 0;
    return { done: true as const, value };
  }
}

/**
 * A turn's owner refused while the next in line claims the turn: that one is about to enter, or
 * its claim lapses (it is not running) and the owner goes on. The owner's entry, or null once the
 * next in line entered (the turn is over: to the line).
 */
async function goOn<T>(line: GateLineStore, name: string, own: number, enter: Enter<T>): Promise<Entry<T> | null> {
  const until = Date.now() + GRACE_MS;
  for (let i = 0; Date.now() < until; i++) {
    const view = await line.readGateLine(name);
    if (view.served !== own || view.turnEnd <= 0) return null;
    if (view.claimUntil < view.now) {
      const again = await patiently(() => enter(turnOf(own), false));
      if (again.kind === 'in') return again;
      if (again.kind === 'held') return null;
    }
    const ms = OWNER_PAUSES_MS[i] ?? 1;
    if (ms < 1) pauseBriefly(ms);
    else await new Promise((r) => setTimeout(r, ms));
  }
  return null;
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
/** Whether a holder's liveness is answered from the trust of a recent proof (no process facts read). */
function isTrusted(holder: GateRecord, trusted: { who: string; until: number }): boolean {
  return processOf(holder) === trusted.who && Date.now() < trusted.until;
}

function live(
  ctx: LanesContext,
  holder: GateRecord,
  now: number,
  trusted: { who: string; until: number },
  trust: (who: string) => void,
): boolean {
  if (isTrusted(holder, trusted)) return true;
  const who = processOf(holder);
  const proven = ctx.judge([{ owner: holder.owner, lastSeenMs: holder.leaseUntil - ctx.gateLeaseMs }], now)[0]!.live;
  // Trusted from this proof on, never from a trusted answer: a dead holder is found within 50 ms.
  if (proven) trust(who);
  return proven;
}

function processOf(holder: GateRecord): string {
  const o = holder.owner;
  return `${o.host}\0${o.bootId}\0${o.pid}\0${o.startTime}`;
}
