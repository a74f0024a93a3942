import type { Socket } from 'node:net';
import type * as Pg from 'pg';
import type { ServerConn } from './server-types.js';
import { simpleQuery } from './simple-query.js';

// The server as a fleet of brokers shares it (server-pool.ts): logging in, and how full it is.

/** How long a headroom sample is trusted. */
export const HEADROOM_FRESH_MS = 4000;
/** How often a broker in use asks how full the server is (one small query), and one not in use. */
export const SAMPLE_EVERY_MS = 1000;
export const IDLE_SAMPLE_MS = 2000;
/** A crowded server is treated so for this long after it was last seen so. */
export const CROWDED_FOR_MS = 30_000;
/** On a crowded server, a connection idle this long is given back to it. */
export const CROWDED_IDLE_MS = 250;
/** A broker seen on the server is counted in the fleet for this long. */
export const FLEET_SEEN_MS = 60_000;
/** On a crowded server, a connection in use is given back once it served this long (a broker's turn). */
export const CROWDED_TURN_MS = 1000;
/** Logging in to the server, at most (then the clients queued for it are told why). */
const CONNECT_TIMEOUT_MS = 5000;

interface PgConnection {
  stream: Socket;
  on(event: 'parameterStatus', fn: (m: { parameterName: string; parameterValue: string }) => void): void;
}

/**
 * One server connection, logged in by pg itself (every authentication method and TLS mode the
 * direct path has), then pg's parser taken off its socket: the broker reads and writes it itself.
 * Answers the socket and the parameters the server reported at log-in.
 */
export async function logIn(
  pg: typeof Pg,
  connectionString: string,
  applicationName: string,
): Promise<{ socket: Socket; params: Record<string, string> }> {
  const client = new pg.Client({
    connectionString,
    application_name: applicationName,
    keepAlive: true,
    // A server that does not answer: the clients queued for it learn so, rather than wait the OS's minutes.
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
  });
  const params: Record<string, string> = {};
  const connection = (client as unknown as { connection: PgConnection }).connection;
  connection.on('parameterStatus', (m) => {
    params[m.parameterName] = m.parameterValue;
  });
  client.on('error', () => undefined);
  await client.connect();
  const socket = connection.stream;
  if (!socket || typeof socket.removeAllListeners !== 'function')
    throw new Error('pg changed: no socket on its connection');
  socket.removeAllListeners('data');
  socket.on('error', () => undefined);
  return { socket, params };
}

/**
 * How full the server is, in one simple query over a pooled connection (read with the broker's own
 * tiny reader): connections it can still accept (max_connections less those reserved and those
 * open), those it has for clients at all, and which brokers of lanes are connected to it (each
 * names itself 'lanes broker …' in pg_stat_activity, no '/' in it), to share them.
 */
export async function serverRoom(c: ServerConn): Promise<{ free: number; usable: number; brokers: string[] }> {
  const usable =
    "current_setting('max_connections')::int - current_setting('superuser_reserved_connections')::int" +
    " - coalesce(current_setting('reserved_connections', true)::int, 0)";
  const sql =
    `SELECT concat_ws('/', (${usable}) - count(*)::int, ${usable},` +
    " string_agg(DISTINCT application_name, '/') FILTER (WHERE application_name LIKE 'lanes broker %'))" +
    " FROM pg_stat_activity WHERE backend_type = 'client backend'";
  const [free, all, ...brokers] = String(await simpleQuery(c.socket, sql)).split('/');
  return { free: Number(free ?? 0), usable: Number(all ?? 1), brokers };
}
