import type { Socket } from 'node:net';
import type { ServerConn, ServerPool } from './server-pool.js';
import {
  CANCEL_REQUEST,
  GSSENC_REQUEST,
  MessageReader,
  PROTOCOL_3,
  SSL_REQUEST,
  T,
  authenticationOk,
  backendKeyData,
  errorResponse,
  parameterStatus,
  readyForQuery,
  readyStatus,
  startupParameters,
} from './wire.js';

// Transaction pooling, as PgBouncer's transaction mode does it: a client holds a server connection
// from its first message after being idle until the server says it is idle again (ReadyForQuery
// 'I') with nothing of the client's outstanding, then the connection serves the next client. lanes'
// PostgreSQL store keeps nothing in a server session (conn.ts), which is what makes this sound.
// Clients reach the broker only through a socket in a directory private to the user (run.ts):
// they are logged in without a password, and must name the broker's build (`identity`).

export class Pooler {
  private readonly live = new Set<Socket>();
  private nextPid = 1;

  constructor(
    private readonly pool: ServerPool,
    private readonly identity: string,
    private readonly onIdle: () => void,
  ) {}

  get clients(): number {
    return this.live.size;
  }

  serve(client: Socket): void {
    this.live.add(client);
    new ClientSession(client, this.pool, this.identity, this.nextPid++, () => {
      this.live.delete(client);
      if (this.live.size === 0) this.onIdle();
    });
  }

  closeAll(): void {
    for (const c of this.live) c.destroy();
  }
}

class ClientSession {
  private readonly reader = new MessageReader({ untyped: true, maxLength: 64 << 20 });
  private started = false;
  private closed = false;
  private server: ServerConn | null = null;
  private serverReader = new MessageReader();
  private acquiring = false;
  /** Messages waiting for a server connection. */
  private queue: Buffer[] = [];
  /** Syncs, simple queries and function calls sent whose ReadyForQuery has not come back. */
  private pending = 0;
  /** Extended-protocol messages sent since the last Sync: the server holds a half-sent request. */
  private unsynced = false;
  private status = 'I';

  constructor(
    private readonly client: Socket,
    private readonly pool: ServerPool,
    private readonly identity: string,
    private readonly pid: number,
    private readonly gone: () => void,
  ) {
    client.on('data', (chunk: Buffer) => this.fromClient(chunk));
    client.on('error', () => undefined);
    client.on('close', () => this.close());
  }

  private fromClient(chunk: Buffer): void {
    let messages;
    try {
      messages = this.reader.push(chunk);
    } catch (e) {
      return this.fail('08P01', `lanes broker: ${(e as Error).message}`);
    }
    for (const m of messages) {
      if (this.closed) return;
      if (!this.started) {
        this.startup(m.body.readInt32BE(0), m);
        continue;
      }
      if (m.type === T.terminate) return void this.client.end();
      this.queue.push(m.raw);
    }
    this.flush();
  }

  private startup(code: number, m: { body: Buffer; type: number; raw: Buffer }): void {
    if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
      this.client.write('N'); // the socket is local and private: no TLS on it
      return;
    }
    if (code === CANCEL_REQUEST) return void this.client.end();
    if (code !== PROTOCOL_3) return this.fail('08P01', `lanes broker: unsupported protocol ${code}`);
    const params = startupParameters(m);
    if (params['application_name'] !== this.identity)
      return this.fail(
        '08P01',
        `lanes broker: this broker serves another lanes build (${this.identity}), not ${params['application_name'] ?? 'an unnamed client'}`,
      );
    this.started = true;
    const hello = [authenticationOk()];
    for (const [k, v] of Object.entries(this.pool.parameters)) hello.push(parameterStatus(k, v));
    hello.push(backendKeyData(process.pid, this.pid), readyForQuery('I'));
    this.client.write(Buffer.concat(hello));
  }

  /** Sends what waits to the server connection this client holds, or asks for one. */
  private flush(): void {
    if (this.closed || this.queue.length === 0) return;
    if (this.server) {
      const out = this.queue;
      this.queue = [];
      for (const raw of out) {
        const type = raw[0];
        if (type === T.sync || type === T.query || type === T.functionCall) {
          this.pending++;
          this.unsynced = false;
        } else this.unsynced = true;
      }
      this.server.socket.write(out.length === 1 ? (out[0] as Buffer) : Buffer.concat(out));
      return;
    }
    if (this.acquiring) return;
    this.acquiring = true;
    this.pool.acquire().then(
      (c) => {
        this.acquiring = false;
        if (this.closed) return this.pool.release(c); // it is idle: nothing of this client reached it
        this.attach(c);
        this.flush();
      },
      (e: Error & { code?: string }) => {
        this.acquiring = false;
        this.fail(e.code && /^[0-9A-Z]{5}$/.test(e.code) ? e.code : '08006', `lanes broker: ${e.message}`);
      },
    );
  }

  private readonly onServerData = (chunk: Buffer) => {
    this.client.write(chunk);
    let messages;
    try {
      messages = this.serverReader.push(chunk);
    } catch {
      return this.serverLost();
    }
    for (const m of messages) {
      if (m.type !== T.readyForQuery) continue;
      this.pending--;
      this.status = readyStatus(m);
    }
    if (this.pending <= 0 && this.status === 'I' && !this.unsynced) this.detach(true);
  };

  private readonly onServerClose = () => this.serverLost();

  private attach(c: ServerConn): void {
    this.server = c;
    this.serverReader = new MessageReader();
    this.pending = 0;
    this.unsynced = false;
    this.status = 'I';
    c.socket.on('data', this.onServerData);
    c.socket.once('close', this.onServerClose);
  }

  /** Hands the server connection back (idle) or closes it (anything else). */
  private detach(idle: boolean): void {
    const c = this.server;
    if (!c) return;
    this.server = null;
    c.socket.removeListener('data', this.onServerData);
    c.socket.removeListener('close', this.onServerClose);
    if (idle && !c.socket.destroyed) this.pool.release(c);
    else this.pool.discard(c);
    if (this.queue.length) this.flush();
  }

  /**
   * The server connection broke under this client: its connection to the broker breaks too, as a
   * direct one would have (pg says "Connection terminated"), so the store's own handling of a cut
   * applies unchanged (a retry where the transaction surely did not commit, else an error).
   */
  private serverLost(): void {
    this.detach(false);
    this.client.destroy();
    this.close();
  }

  private fail(code: string, message: string): void {
    if (this.closed) return;
    this.client.end(errorResponse('FATAL', code, message));
    this.close();
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    // A client gone mid-transaction leaves the server connection in it: closed, never lent again.
    this.detach(this.pending <= 0 && this.status === 'I' && !this.unsynced);
    this.queue = [];
    this.gone();
  }
}
