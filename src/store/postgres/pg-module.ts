import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as Pg from 'pg';
import type { Pool } from 'pg';
import type { BrokerPlace } from './broker/place.js';
import type { PgTarget } from './url.js';
import { loadBundle } from '../../core/code-cache.js';

export interface PgOptions {
  /** How long a statement may wait for another client's lock before E_STORE_LOCKED (lock_timeout). */
  busyTimeoutMs?: number;
  /** Connections in the pool (default 4: the CLI uses one; a library process may run calls in parallel). */
  poolSize?: number;
  connectTimeoutMs?: number;
  /** Client-side bound on one statement: a half-open connection fails instead of hanging. */
  queryTimeoutMs?: number;
  /** Straight to the server, never through the host's broker (the broker itself; LISTEN). */
  direct?: boolean;
}

/**
 * pg, loaded only here: the SQLite path never loads it. pg checks at load whether it runs in a
 * Cloudflare Worker by constructing a fetch `Response` when there is no `navigator`, and on Node 20
 * that loads the whole fetch implementation (undici): ~20 ms of every hook call on a team store
 * (measured with --cpu-prof). A `navigator` that says Node answers the check without it.
 */
export function loadPg(): typeof Pg {
  const g = globalThis as { navigator?: unknown };
  const stubbed = g.navigator === undefined;
  if (stubbed) g.navigator = { userAgent: `Node.js/${process.version}` };
  try {
    // The CLI ships pg as one pre-bundled file next to its own (build.mjs), loaded with the code
    // cache; the library and the tests use the installed package.
    const bundled = join(dirname(fileURLToPath(import.meta.url)), 'pg.cjs');
    return (
      existsSync(bundled) ? loadBundle(bundled, createRequire(bundled)) : createRequire(import.meta.url)('pg')
    ) as typeof Pg;
  } finally {
    if (stubbed) delete g.navigator;
  }
}

/** How long an unused connection stays open (the pool's, and the one a store keeps: kept-client.ts). */
export const IDLE_MS = 10_000;

/** The pool of one store: to the server, or to this host's broker (broker/). */
export function makePool(pg: typeof Pg, target: PgTarget, options: PgOptions, via: BrokerPlace | null): Pool {
  const bigint = (v: string) => Number(v);
  // LANES_PG_TIMEOUT_MS bounds connecting and each statement (defaults 5 s and 30 s): a server behind a
  // half-open connection fails the call instead of hanging it.
  const envTimeout = Number(process.env['LANES_PG_TIMEOUT_MS']) || undefined;
  const pool = new pg.Pool({
    // The broker's socket is a "host" directory to pg; it logs this user in without a password
    // (its directory is private) once the client names the broker's build.
    ...(via
      ? { host: via.dir, port: via.port, user: 'lanes', database: 'lanes', application_name: via.identity }
      : { connectionString: target.connectionString, application_name: 'lanes' }),
    max: options.poolSize ?? 4,
    connectionTimeoutMillis: options.connectTimeoutMs ?? envTimeout ?? 5000,
    query_timeout: options.queryTimeoutMs ?? envTimeout ?? 30_000,
    idleTimeoutMillis: IDLE_MS,
    allowExitOnIdle: true,
    keepAlive: !via,
    // BIGINT (times in ms, tokens) as numbers, for this pool only.
    types: {
      getTypeParser: ((oid: number, format?: string) =>
        oid === 20 ? bigint : pg.types.getTypeParser(oid, format as 'text')) as never,
    },
  });
  pool.on('error', () => undefined); // an idle client dropped by the server: the next checkout reconnects
  // A checked-out client whose connection drops emits 'error' on itself as well as failing its
  // query; with no listener that event would crash the process (seen with a connection cut
  // between two statements of a transaction). The failing query carries the error to the caller.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}
