import { createServer, connect } from 'node:net';
import type { Server, Socket } from 'node:net';
import { after } from 'node:test';

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
      client.on('data', (d: Buffer) => {
        if (!this.blackhole) upstream.write(d);
      });
      upstream.on('data', (d: Buffer) => {
        if (!this.blackhole) client.write(d);
      });
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

  restore(): void {
    this.open = true;
    this.blackhole = false;
  }

  close(): void {
    this.cut();
    this.server.close();
  }
}
