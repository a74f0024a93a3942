import { createServer, connect } from 'node:net';
import type { Server, Socket } from 'node:net';
import { after } from 'node:test';
import { PG_URL, pgSchemaUrl } from './pg.js';

/**
 * A TCP proxy the test controls, between a lanes client and the PostgreSQL server: cut() drops
 * every connection and refuses new ones (a network partition), swallow() keeps them open but
 * passes nothing (a half-open connection), restore() lets everything through again.
 */
export class TcpProxy {
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private open = true;
  private blackhole = false;
  /** Bytes seen per direction over every connection, and a one-shot cut armed at a byte count. */
  readonly bytes = { toServer: 0, toClient: 0 };
  private trip: { at: number; direction: 'toServer' | 'toClient'; done: () => void } | null = null;
  port = 0;

  private constructor(targetHost: string, targetPort: number) {
    this.server = createServer((client) => {
      if (!this.open) {
        client.destroy();
        return;
      }
      const upstream = connect(targetPort, targetHost);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => undefined);
      }
      // Forwarded by hand so a black hole can swallow bytes while the sockets stay open.
      const pass = (direction: 'toServer' | 'toClient', d: Buffer, to: Socket) => {
        if (this.blackhole) return;
        const trip = this.trip;
        if (trip && trip.direction === direction && this.bytes[direction] + d.length > trip.at) {
          // Forward up to the cut point, then drop this connection (both sides): a network blip.
          to.write(d.subarray(0, Math.max(0, trip.at - this.bytes[direction])));
          this.bytes[direction] = trip.at;
          this.trip = null;
          client.destroy();
          upstream.destroy();
          trip.done();
          return;
        }
        this.bytes[direction] += d.length;
        to.write(d);
      };
      client.on('data', (d: Buffer) => pass('toServer', d, upstream));
      upstream.on('data', (d: Buffer) => pass('toClient', d, client));
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    after(() => this.close());
  }

  static async start(targetHost: string, targetPort: number): Promise<TcpProxy> {
    const p = new TcpProxy(targetHost, targetPort);
    await new Promise<void>((resolve) => p.server.listen(0, '127.0.0.1', resolve));
    const addr = p.server.address();
    p.port = typeof addr === 'object' && addr ? addr.port : 0;
    return p;
  }

  /** A partition: every connection dropped, new ones refused. */
  cut(): void {
    this.open = false;
    for (const s of this.sockets) s.destroy();
  }

  /** A half-open network: connections stay up, no byte gets through either way. */
  swallow(): void {
    this.blackhole = true;
  }

  /**
   * Drops the connection that carries byte number `at` (counted from now) in `direction`, once;
   * connections made afterwards pass. Resolves when it has cut (never, if that many bytes never flow).
   */
  cutAfter(at: number, direction: 'toServer' | 'toClient'): Promise<void> {
    return new Promise((done) => {
      this.trip = { at: this.bytes[direction] + at, direction, done };
    });
  }

  /** Disarms a cut that has not happened. */
  disarm(): void {
    this.trip = null;
  }

  restore(): void {
    this.open = true;
    this.blackhole = false;
  }

  close(): void {
    this.cut();
    this.server.close();
  }
}

/** A fresh schema on the test server, and the same store URL through a TcpProxy the test controls. */
export async function proxiedSchema(): Promise<{
  url: string;
  via: string;
  proxy: TcpProxy;
  drop: () => Promise<void>;
}> {
  const { url, drop } = pgSchemaUrl();
  const target = new URL(PG_URL);
  const proxy = await TcpProxy.start(target.hostname, Number(target.port || 5432));
  const via = new URL(url);
  via.hostname = '127.0.0.1';
  via.port = String(proxy.port);
  return { url, via: via.toString(), proxy, drop };
}
