import { LanesError } from '../core/errors.js';
import type { Notice } from './context.js';

export interface WaitOptions {
  /** Cancels the wait; nothing has been acquired when it rejects with E_ABORTED. */
  signal?: AbortSignal;
  /** Give up after this long with E_TIMEOUT (exit 5). Undefined: wait indefinitely. */
  timeoutMs?: number;
  /** Print the notice after this long (default 1000 ms). */
  noticeAfterMs?: number;
}

/** How a waiter polls: 'short' for gates (held for micro- to milliseconds), 'long' for claims. */
export type PollSchedule = 'short' | 'long';

/** retryInMs: when to try again, instead of the schedule (fractions of a millisecond pause the thread). */
export type Attempt<T> = { done: true; value: T } | { done: false; blockedBy: () => string; retryInMs?: number };

// Short sleeps first (a gate is usually held for well under a millisecond), then a few ms, with
// jitter so pollers of one gate do not move in lock-step.
const SCHEDULES: Record<PollSchedule, { steps: number[]; max: number }> = {
  // A gate changes hands in well under a millisecond: yield-and-retry first, then short sleeps.
  short: { steps: [0, 0, 0, 0, 1, 1, 2], max: 4 },
  // A claim's holder releases in a round trip at the least: a retry at once finds it still held
  // and costs both the client and the server a refused claim (bench/claims, 16 clients on PostgreSQL).
  long: { steps: [1, 1, 2, 3, 5, 8], max: 12 },
};

const pauseCell = new Int32Array(new SharedArrayBuffer(4));

/**
 * Blocks the thread for a fraction of a millisecond (a timer cannot wait less than one): only for
 * waits that end within it, such as a gate whose holder is about to leave.
 */
export function pauseBriefly(ms: number): void {
  Atomics.wait(pauseCell, 0, 0, ms);
}

function sleep(ms: number, signal: AbortSignal | undefined, jitter = true): Promise<void> {
  return new Promise((resolve) => {
    if (ms <= 0) {
      setImmediate(resolve);
      return;
    }
    if (ms < 1) {
      pauseBriefly(ms);
      setImmediate(resolve);
      return;
    }
    const timer = setTimeout(done, jitter ? ms + Math.random() * ms * 0.5 : ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}

/**
 * Polls `attempt` until it succeeds. Silent when short; after noticeAfterMs prints ONE notice
 * saying what it waits for, who holds it and how to get out. Honours the signal and the deadline.
 */
export async function waitFor<T>(
  what: string,
  attempt: () => Promise<Attempt<T>>,
  notice: Notice,
  options: WaitOptions = {},
  schedule: PollSchedule = 'long',
): Promise<T> {
  const { steps, max } = SCHEDULES[schedule];
  const started = Date.now();
  const noticeAfter = options.noticeAfterMs ?? 1000;
  let noticed = false;
  for (let i = 0; ; i++) {
    if (options.signal?.aborted) throw aborted(what);
    const result = await attempt();
    if (result.done) return result.value;
    const elapsed = Date.now() - started;
    if (options.timeoutMs !== undefined && elapsed >= options.timeoutMs) {
      throw new LanesError(
        'E_TIMEOUT',
        `gave up waiting for ${what} after ${options.timeoutMs} ms: ${result.blockedBy()}`,
        {
          hint: 'nothing was changed; coordinate with the holder or wait longer',
          details: { what, waitedMs: elapsed },
        },
      );
    }
    if (!noticed && elapsed >= noticeAfter) {
      noticed = true;
      notice(
        `lanes: waiting for ${what}: ${result.blockedBy()}. Press Ctrl-C to stop waiting (nothing will be changed).`,
      );
    }
    let delay = result.retryInMs ?? steps[i] ?? max;
    if (!noticed && elapsed + delay > noticeAfter) delay = Math.max(0, noticeAfter - elapsed);
    if (options.timeoutMs !== undefined) delay = Math.min(delay, Math.max(0, options.timeoutMs - elapsed));
    await sleep(delay, options.signal, result.retryInMs === undefined);
  }
}

function aborted(what: string): LanesError {
  return new LanesError('E_ABORTED', `stopped waiting for ${what}`, { hint: 'nothing was changed', details: { what } });
}
