import type { Socket } from 'node:net';
import type * as Pg from 'pg';

// The broker's few connections to the PostgreSQL server. Each is logged in by pg itself (every
// authentication method and TLS mode the direct path has), then pg's parser is taken off its socket
// and the broker passes whole transactions over it (pooler.ts). A connection is lent to one client
// for one transaction and comes back idle; one that failed or was left mid-transaction is closed.

export interface ServerConn {
  socket: Socket;
  /** When it was last given back (idle connections are closed after a while). */
  idleSince: number;
}

export interface ServerPoolOptions {
  connectionString: string;
  /** What the server shows for these connections (pg_stat_activity.application_name). */
  applicationName: string;
  /** Most connections this broker holds (default 2). */
  max: number;
  /** An idle connection is closed after this long (default 10 s). */
  idleMs: number;
  /** A client waiting longer than this for a connection makes the pool try one more (default 20 ms). */
  growAfterMs: number;
  /** Opening another connection only while the server has at least this many free (default 8). */
  headroom: number;
  /** Where the pool says what clients wait for (the broker's log). */
  log?: (line: string) => void;
}

export interface PoolStats {
  open: number;
  busy: number;
  waiting: number;
  /** Times the server refused a connection (too many clients): absorbed, never passed on. */
  refused: number;
  opened: number;
}

type Waiter = { resolve: (c: ServerConn) => void; reject: (e: Error) => void; since: number };

export class ServerPool {
  private readonly idle: ServerConn[] = [];
  private readonly waiters: Waiter[] = [];
  private busy = 0;
  private opening = 0;
  private refusedUntil = 0;
  /** The server's free connections as last sampled (over an idle connection), and when. */
  private headroomSeen = { ok: false, at: 0 };
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
    this.reaper = setInterval(() => this.closeIdle(), Math.max(250, Math.min(o.idleMs, 5000)));
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
    const w = this.waiters.shift();
    if (w) {
      w.resolve(c);
      return;
    }
    this.busy = Math.max(0, this.busy - 1);
    c.idleSince = Date.now();
    this.idle.push(c);
    // A quiet moment: learn whether the server could take another connection of this broker's
    // later, when clients queue and no connection is idle to ask over (hasHeadroom).
    if (this.o.max > 1 && Date.now() - this.headroomSeen.at > HEADROOM_FRESH_MS / 2) void this.hasHeadroom();
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

  private grow(): void {
    if (this.open >= this.o.max || (this.open > 0 && Date.now() < this.refusedUntil)) return;
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
        if (this.waiters.length && !this.retryTimer) {
          const delay = Math.min(400, 100 * 2 ** this.firstTries++) * (0.5 + Math.random() / 2);
          this.retryTimer = setTimeout(() => {
            this.retryTimer = undefined;
            if (this.waiters.length) this.grow();
          }, delay);
        }
      },
    );
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
      const client = new this.pg.Client({
        connectionString: this.o.connectionString,
        application_name: this.o.applicationName,
        keepAlive: true,
      });
      const params: Record<string, string> = {};
      const connection = (client as unknown as { connection: PgConnection }).connection;
      connection.on('parameterStatus', (m: { parameterName: string; parameterValue: string }) => {
        params[m.parameterName] = m.parameterValue;
      });
      client.on('error', () => undefined);
      try {
        await client.connect();
      } catch (e) {
        if ((e as { code?: string }).code === '53300') {
          this.stats.refused++;
          this.refusedUntil = Date.now() + 30_000;
        }
        throw e;
      }
      const socket = connection.stream;
      if (!socket || typeof socket.removeAllListeners !== 'function')
        throw new Error('pg changed: no socket on its connection');
      // pg's parser off: from here the broker reads and writes this socket itself.
      socket.removeAllListeners('data');
      socket.on('error', () => undefined);
      this.stats.opened++;
      if (Object.keys(params).length) this.parameters = { ...params, application_name: 'lanes' };
      const c: ServerConn = { socket, idleSince: Date.now() };
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
      const ok = (await freeConnections(c)) >= this.o.headroom;
      this.headroomSeen = { ok, at: Date.now() };
      return ok;
    } catch {
      this.headroomSeen = { ok: false, at: Date.now() };
      return false;
    } finally {
      // Back to the idle list, or to a client that queued meanwhile.
      if (!c.socket.destroyed) this.release(c);
      else this.busy = Math.max(0, this.busy - 1);
    }
  }

  /** A connection closed by the server (or the network): out of the idle list. */
  private forget(c: ServerConn): void {
    const i = this.idle.indexOf(c);
    if (i >= 0) this.idle.splice(i, 1);
  }

  private closeIdle(): void {
    const now = Date.now();
    // The last one stays while clients come and go: the broker exits when idle itself (broker/run.ts).
    for (let i = this.idle.length - 1; i >= 0 && this.idle.length > 1; i--) {
      const c = this.idle[i] as ServerConn;
      if (now - c.idleSince >= this.o.idleMs) {
        this.idle.splice(i, 1);
        c.socket.end(TERMINATE);
      }
    }
  }

  async end(): Promise<void> {
    clearInterval(this.reaper);
    if (this.growTimer) clearTimeout(this.growTimer);
    if (this.retryTimer) clearTimeout(this.retryTimer);
    for (const w of this.waiters.splice(0)) w.reject(new Error('the broker is stopping'));
    for (const c of this.idle.splice(0)) c.socket.end(TERMINATE);
  }
}

interface PgConnection {
  stream: Socket;
  on(event: 'parameterStatus', fn: (m: { parameterName: string; parameterValue: string }) => void): void;
}

const TERMINATE = Buffer.from([0x58, 0, 0, 0, 4]);
/** How long a headroom sample is trusted. */
const HEADROOM_FRESH_MS = 4000;
/** How long a client waits for the broker's first connection while the server is full. */
const FIRST_CONNECT_WAIT_MS = Number(process.env['LANES_BROKER_FULL_WAIT_MS']) || 10_000;

/**
 * Connections the server can still accept: max_connections less those reserved and those open,
 * in one simple query over a pooled connection (read here with the broker's own tiny reader).
 */
async function freeConnections(c: ServerConn): Promise<number> {
  const sql =
    "SELECT current_setting('max_connections')::int - current_setting('superuser_reserved_connections')::int" +
    " - coalesce(current_setting('reserved_connections', true)::int, 0) - (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend')::int";
  const { simpleQuery } = await import('./simple-query.js');
  return Number(await simpleQuery(c.socket, sql));
}
