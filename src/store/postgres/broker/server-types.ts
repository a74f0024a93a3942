import type { Socket } from 'node:net';

// What the broker's pool of server connections (server-pool.ts) holds, takes and tells.

export interface ServerConn {
  socket: Socket;
  /** When it was last given back (idle connections are closed after a while). */
  idleSince: number;
  /** When it was logged in (on a crowded server a connection serves one turn: CROWDED_TURN_MS). */
  since: number;
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
