import type { PoolClient } from 'pg';

/** What pg-pool itself reads to tell a client it may hand out again (private fields of pg's Client). */
interface ClientState {
  _ending?: boolean;
  _queryable?: boolean;
  ref?: () => void;
  unref?: () => void;
}

function usable(c: PoolClient): boolean {
  const s = c as unknown as ClientState;
  return s._ending !== true && s._queryable !== false;
}

/**
 * The connection a store keeps checked out between its calls. A claim/release cycle is two calls,
 * and checking a client out of pg-pool and back in for each cost more of the client's CPU than
 * lanes' own code (bench/claims, 16 clients: timers for the checkout's and the idle timeout, a
 * nextTick, events, a socket ref/unref, in code that stays cold in short processes). Kept here,
 * the next call takes it back with no pool step; a call made while it is in use (calls in
 * parallel) gets one from the pool as before.
 *
 * What the pool does for an idle client is done here too: the process may exit while it is kept
 * (unref, as allowExitOnIdle), one that errors or ends while kept is dropped, and one kept
 * idleMs unused is closed (one timer per idle period, not one per call).
 */
export class KeptClient {
  private client: PoolClient | null = null;
  private keptAt = 0;
  private timer: NodeJS.Timeout | null = null;
  private readonly watched = new WeakSet<PoolClient>();
  /** Moves on at each drop(): a client checked out before it (its pool ended or replaced) is never kept. */
  generation = 0;

  constructor(private readonly idleMs: number) {}

  /** The kept client, now the caller's (null: none kept); give it back with put(). */
  take(): PoolClient | null {
    const c = this.client;
    if (c === null) return null;
    this.client = null;
    if (!usable(c)) {
      c.release(true);
      return null;
    }
    (c as unknown as ClientState).ref?.();
    return c;
  }

  /**
   * Keeps `c` for the next call; a broken one, one more than one, or one checked out before the
   * last drop() (`generation`: its pool is ending, and waits for it) goes back to its pool.
   */
  put(c: PoolClient, broken: boolean, generation: number): void {
    if (broken || this.client !== null || generation !== this.generation || !usable(c)) {
      c.release(broken);
      return;
    }
    if (!this.watched.has(c)) {
      this.watched.add(c);
      // A connection lost while kept: dropped (the pool would drop an idle one the same way).
      const lost = () => {
        if (this.client !== c) return;
        this.client = null;
        c.release(true);
      };
      c.on('error', lost);
      c.on('end', lost);
    }
    (c as unknown as ClientState).unref?.();
    this.client = c;
    this.keptAt = Date.now();
    this.timer ??= this.arm(this.idleMs);
  }

  /** Gives the kept client back to its pool (before the pool ends or is replaced). */
  drop(): void {
    this.generation++;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const c = this.client;
    this.client = null;
    c?.release();
  }

  private arm(ms: number): NodeJS.Timeout {
    const t = setTimeout(() => {
      this.timer = null;
      const c = this.client;
      if (c === null) return;
      const idle = Date.now() - this.keptAt;
      if (idle < this.idleMs) {
        this.timer = this.arm(this.idleMs - idle);
        return;
      }
      this.client = null;
      c.release(true); // closed, as the pool closes a client idle for idleTimeoutMillis
    }, ms);
    t.unref();
    return t;
  }
}
