import type { Notice } from './context.js';

/** What a store that is away for a while answers: unreachable, the connection lost, busy too long. */
const OUTAGE = new Set(['E_STORE_IO', 'E_STORE_LOCKED']);

export function isOutage(e: unknown): boolean {
  return OUTAGE.has(String((e as { code?: unknown }).code ?? ''));
}

const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 5000;

/**
 * How a long-lived process (lanes log -f, lanes ui, lanes mcp) rides out a store outage of any
 * length: the step is retried with backoff (0.25 s doubling to 5 s) until the store answers again
 * or the process is stopped, with one notice when the outage starts and one when it ends — never a
 * notice per try, and never an exit. Errors that are not an outage (a bad query) are thrown as ever.
 */
export class OutageWatch {
  private since: number | null = null;

  constructor(
    private readonly notice: Notice,
    private readonly what: string,
  ) {}

  /** Runs `step`, waiting out an outage; null when stopped (the signal) before the store came back. */
  async run<T>(step: () => Promise<T>, signal?: AbortSignal): Promise<T | null> {
    for (let wait = FIRST_RETRY_MS; ; wait = Math.min(wait * 2, MAX_RETRY_MS)) {
      if (signal?.aborted) return null;
      try {
        const value = await step();
        this.up();
        return value;
      } catch (e) {
        if (!isOutage(e)) throw e;
        this.failed(e);
      }
      await pause(wait, signal);
    }
  }

  /** Records a failed step of the caller's own loop (the page's refresh): the first one is told. */
  failed(e: unknown): void {
    if (this.since !== null) return;
    this.since = Date.now();
    this.notice(
      `lanes: the store is unreachable (${(e as Error).message.split('\n')[0]}); ${this.what} keeps trying until it is back`,
    );
  }

  /** A step that worked: the end of an outage is told once. */
  up(): void {
    if (this.since === null) return;
    const s = ((Date.now() - this.since) / 1000).toFixed(1);
    this.since = null;
    this.notice(`lanes: the store is back after ${s} s; ${this.what} goes on`);
  }
}

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}
