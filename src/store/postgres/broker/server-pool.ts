import type { Socket } from 'node:net';
import type * as Pg from 'pg';
import type { PoolStats, ServerConn, ServerPoolOptions } from './server-types.js';
import {
  CROWDED_FOR_MS,
  CROWDED_IDLE_MS,
  CROWDED_TURN_MS,
  FLEET_SEEN_MS,
  HEADROOM_FRESH_MS,
  IDLE_SAMPLE_MS,
  SAMPLE_EVERY_MS,
  logIn,
  serverRoom,
} from './server-room.js';

// The broker's few connections to the PostgreSQL server. Each is logged in by pg itself (every
// authentication method and TLS mode the direct path has), then pg's parser is taken off its socket
// and the broker passes whole transactions over it (pooler.ts). A connection is lent to one client
// for one transaction and comes back idle; one that failed or was left mid-transaction is closed.

export type { PoolStats, ServerConn, ServerPoolOptions } from './server-types.js';

type Waiter = { resolve: (c: ServerConn) => void; reject: (e: Error) => void; since: number };

export class ServerPool {
  private readonly idle: ServerConn[] = [];
  private readonly waiters: Waiter[] = [];
  private busy = 0;
  private opening = 0;
  private refusedUntil = 0;
  /** The server's free connections as last sampled (over an idle connection), and when. */
  private headroomSeen = { ok: false, at: 0 };
  /** Until when the server counts as crowded (fewer than `headroom` free, or a log-in refused). */
  private crowdedUntil = 0;
  /** After giving a connection back to a crowded server, no new one before this. */
  private yieldUntil = 0;
  /** This broker's fair share of the server (usable connections over brokers; unknown before a sample). */
  private share = Infinity;
  private stopped = false; // end() called: a connection given back after it (a sample, a log-in) is closed
  /** The server's usable connections, and the brokers seen on it lately (name → when): the fleet. */
  private usable = Infinity;
  private readonly fleet = new Map<string, number>();
  /** Parameters the server reported at log-in (a client is told them when it logs in to the broker). */
  parameters: Record<string, string> = {};
  readonly stats = { refused: 0, opened: 0 };
  private growTimer: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private firstTries = 0;
  private readonly reaper: NodeJS.Timeout;

  constructor(
    private readonly pg: typeof Pg,
    private readonly o: ServerPoolOptions,
  ) {
    this.reaper = setInterval(() => this.closeIdle(), CROWDED_IDLE_MS);
    this.reaper.unref();
  }

  get open(): number {
    return this.idle.length + this.busy + this.opening;
  }

  snapshot(): PoolStats {
    return {
      open: this.idle.length + this.busy,
      busy: this.busy,
      waiting: this.waiters.length,
      refused: this.stats.refused,
      opened: this.stats.opened,
    };
  }

  /** The first connection, opened at start: a broker that cannot reach the server says so at once. */
  async warm(): Promise<void> {
    const c = await this.connect();
    this.busy++;
    this.release(c);
  }

  /** A connection for one transaction: an idle one, a new one while under the limits, else the next freed. */
  acquire(): Promise<ServerConn> {
    const c = this.idle.pop();
    if (c) {
      this.busy++;
      return Promise.resolve(c);
    }
    return new Promise<ServerConn>((resolve, reject) => {
      this.waiters.push({ resolve, reject, since: Date.now() });
      if (this.open === 0 && !this.retryTimer) this.grow();
      else this.scheduleGrow();
    });
  }

  /** Gives back a connection that is idle (ReadyForQuery 'I', nothing pending). */
  release(c: ServerConn): void {
    if (this.stopped) return void c.socket.end(TERMINATE);
    // A crowded server: this broker's turn with this connection is over. It goes back to the server
    // for a broker that has none, and this one logs in again after a pause (its own clients wait
    // that long), rather than take the slot straight back.
    if (this.crowded && Date.now() - c.since > CROWDED_TURN_MS) {
      this.busy = Math.max(0, this.busy - 1);
      c.socket.end(TERMINATE);
      this.yieldUntil = Date.now() + CROWDED_IDLE_MS * (0.5 + Math.random());
      if (this.waiters.length) this.retryAfter(this.yieldUntil - Date.now());
      return;
    }
    const w = this.waiters.shift();
    if (w) {
      const waited = Date.now() - w.since;
      if (waited > 1000) this.o.log?.(`a client waited ${waited} ms for a server connection`);
      w.resolve(c);
      return;
    }
    this.busy = Math.max(0, this.busy - 1);
    c.idleSince = Date.now();
    this.idle.push(c);
    // A quiet moment: learn how full the server is — whether this broker may grow later, when
    // clients queue and no connection is idle to ask over (hasHeadroom), and whether it is crowded
    // (closeIdle then gives back what it does not use).
    if (Date.now() - this.headroomSeen.at > SAMPLE_EVERY_MS) void this.hasHeadroom();
  }

  /** A connection that cannot be trusted (broken, left mid-transaction): closed, its place freed. */
  discard(c: ServerConn): void {
    this.busy = Math.max(0, this.busy - 1);
    c.socket.destroy();
    if (this.waiters.length) this.grow();
  }

  /** Clients waiting with nobody to serve them: one more connection, if the limits allow. */
  private scheduleGrow(): void {
    if (this.growTimer) return;
    this.growTimer = setTimeout(() => {
      this.growTimer = undefined;
      const oldest = this.waiters[0];
      if (oldest && Date.now() - oldest.since >= this.o.growAfterMs) this.grow();
      else if (oldest) this.scheduleGrow();
    }, this.o.growAfterMs);
    this.growTimer.unref();
  }

  /** Whether brokers take turns now: the server crowded lately, or the fleet larger than it. */
  get crowded(): boolean {
    return Date.now() < this.crowdedUntil || this.fleet.size > this.usable - this.o.headroom;
  }

  private grow(): void {
    const most = Math.min(this.o.max, this.share);
    if (this.open >= most || (this.open > 0 && Date.now() < this.refusedUntil)) return;
    if (Date.now() < this.yieldUntil) return this.retryAfter(this.yieldUntil - Date.now());
    void this.connect(this.open > 0).then(
      (c) => {
        this.firstTries = 0;
        this.busy++;
        this.release(c);
      },
      (e: Error & { code?: string }) => {
        if (this.open > 0) return; // the clients queue for the connections there are
        // No connection at all. The server full (53300: other hosts hold every slot) is waited
        // out, a try every 100-400 ms, for FIRST_CONNECT_WAIT_MS: a hook's call is then answered
        // late rather than refused. Anything else, or past that: every waiter learns why (the
        // client passes the error on and fails open, loudly).
        const now = Date.now();
        const full = e.code === '53300';
        for (const w of this.waiters.splice(0).filter((x) => {
          if (full && now - x.since < FIRST_CONNECT_WAIT_MS) return true;
          x.reject(e);
          return false;
        }))
          this.waiters.push(w);
        if (this.waiters.length && this.firstTries === 0)
          this.o.log?.(`the server is full: ${this.waiters.length} client(s) wait for a first connection`);
        if (this.waiters.length)
          this.retryAfter(Math.min(400, 100 * 2 ** this.firstTries++) * (0.5 + Math.random() / 2));
      },
    );
  }

  /** Tries for a connection again after `ms`, for the clients still waiting then. */
  private retryAfter(ms: number): void {
    if (this.retryTimer) return;
    const again = () => {
      this.retryTimer = undefined;
      if (this.waiters.length) this.grow();
    };
    this.retryTimer = setTimeout(again, Math.max(1, ms));
  }

  /**
   * Logs a new connection in. Past the first, only while the server keeps `headroom` connections
   * free (asked over a connection this pool holds; a fleet of brokers stays under max_connections
   * rather than hitting it); a refusal (53300) stops growth for 30 s and is only counted.
   */
  private async connect(extra = false): Promise<ServerConn> {
    this.opening++;
    try {
      if (extra && !(await this.hasHeadroom())) {
        this.refusedUntil = Date.now() + 30_000;
        throw Object.assign(new Error('no headroom on the server'), { code: '53300' });
      }
      let socket: Socket;
      let params: Record<string, string>;
      try {
        ({ socket, params } = await logIn(this.pg, this.o.connectionString, this.o.applicationName));
      } catch (e) {
        if ((e as { code?: string }).code === '53300') {
          this.stats.refused++;
          this.refusedUntil = Date.now() + 30_000;
          this.crowdedUntil = Date.now() + CROWDED_FOR_MS;
        }
        throw e;
      }
      this.stats.opened++;
      if (Object.keys(params).length) this.parameters = { ...params, application_name: 'lanes' };
      const c: ServerConn = { socket, idleSince: Date.now(), since: Date.now() };
      socket.once('close', () => this.forget(c));
      return c;
    } finally {
      this.opening--;
    }
  }

  /**
   * Whether the server keeps `headroom` connections free, asked over an idle connection; with none
   * idle (clients queue: the moment a pool grows), the answer sampled in the last few seconds, and
   * no growth without one: 64 brokers growing blind past their first connection filled a
   * 100-connection server (bench/fleet). So each broker holds one connection under full load.
   */
  private async hasHeadroom(): Promise<boolean> {
    const c = this.idle.pop();
    if (!c) return this.headroomSeen.ok && Date.now() - this.headroomSeen.at < HEADROOM_FRESH_MS;
    this.busy++;
    try {
      const { free, usable, brokers } = await serverRoom(c);
      const now = Date.now();
      const ok = free >= this.o.headroom;
      this.headroomSeen = { ok, at: now };
      if (!ok) this.crowdedUntil = now + CROWDED_FOR_MS;
      // The fleet: every broker seen on the server in the last minute, holding a connection then or
      // not. More of them than the server has connections: they take turns however free it looks
      // at this moment (it looks free because they take turns).
      for (const b of brokers) this.fleet.set(b, now);
      for (const [b, at] of this.fleet) if (now - at > FLEET_SEEN_MS) this.fleet.delete(b);
      this.usable = usable;
      this.share = Math.max(1, Math.floor(usable / Math.max(1, this.fleet.size)));
      return ok;
    } catch {
      this.headroomSeen = { ok: false, at: Date.now() };
      return false;
    } finally {
      // Back to the idle list (idle since when it was: asking is not using), or to a client that
      // queued meanwhile.
      const was = c.idleSince;
      if (!c.socket.destroyed) this.release(c);
      else this.discard(c); // and a waiter gets a new one
      if (this.idle.includes(c)) c.idleSince = was;
    }
  }

  /** A connection closed by the server (or the network): out of the idle list. */
  private forget(c: ServerConn): void {
    const i = this.idle.indexOf(c);
    if (i >= 0) this.idle.splice(i, 1);
  }

  private closeIdle(): void {
    const now = Date.now();
    // A broker that holds a connection nobody uses asks now and then how full the server is: the
    // moment it is crowded, the connection goes back to it (below) for a broker that has none.
    if (this.idle.length && now - this.headroomSeen.at > IDLE_SAMPLE_MS) void this.hasHeadroom();
    // The last one stays while clients come and go (the broker exits when idle itself: run.ts) —
    // unless the server is crowded: then brokers share its connections in turn. One that waits for a
    // first connection gets the one given back here; this broker logs in again for its next client.
    const crowded = this.crowded;
    const idleMs = crowded ? CROWDED_IDLE_MS : this.o.idleMs;
    for (let i = this.idle.length - 1; i >= 0 && this.idle.length > (crowded ? 0 : 1); i--) {
      const c = this.idle[i] as ServerConn;
      if (now - c.idleSince >= idleMs) {
        this.idle.splice(i, 1);
        c.socket.end(TERMINATE);
      }
    }
  }

  async end(): Promise<void> {
    this.stopped = true;
    clearInterval(this.reaper);
    if (this.growTimer) clearTimeout(this.growTimer);
    if (this.retryTimer) clearTimeout(this.retryTimer);
    for (const w of this.waiters.splice(0)) w.reject(new Error('the broker is stopping'));
    for (const c of this.idle.splice(0)) c.socket.end(TERMINATE);
  }
}

const TERMINATE = Buffer.from([0x58, 0, 0, 0, 4]);
/**
 * How long a client waits for the broker's first connection while the server is full: within the
 * 10 s lanes gives an agent's hook (agents/claude-code/install.ts), with time left to answer.
 */
const FIRST_CONNECT_WAIT_MS = Number(process.env['LANES_BROKER_FULL_WAIT_MS']) || 8000;
