import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import type * as Pg from 'pg';
import { needs } from './needs.js';

/** The PostgreSQL server of the tests: LANES_TEST_PG_URL (CI starts one; see .ci/run). */
export const PG_URL = process.env['LANES_TEST_PG_URL'] ?? '';

export const PG_SKIP = needs(
  'a PostgreSQL server',
  !PG_URL &&
    'LANES_TEST_PG_URL is not set: no PostgreSQL server for this run (.ci/run starts one; locally: see README, Tests)',
);

/** PgBouncer in transaction mode in front of that server (LANES_TEST_PGBOUNCER_URL). */
export const PGBOUNCER_URL = process.env['LANES_TEST_PGBOUNCER_URL'] ?? '';

/** Reports the skip visibly once per file when there is no server. */
export function announcePgSkip(what: string): void {
  if (PG_SKIP) test(`${what} (PostgreSQL)`, { skip: PG_SKIP }, () => undefined);
}

/** A store URL (on the server, or through `via`) on a fresh schema of its own, and a cleanup that drops it. */
export function pgSchemaUrl(via = PG_URL): { url: string; schema: string; drop: () => Promise<void> } {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const u = new URL(via);
  u.searchParams.set('schema', schema);
  return {
    url: u.toString(),
    schema,
    drop: async () => {
      const pg = createRequire(import.meta.url)('pg') as typeof Pg;
      const c = new pg.Client({ connectionString: PG_URL });
      await c.connect();
      try {
        await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      } finally {
        await c.end();
      }
    },
  };
}

/**
 * Takes every connection the test server has left (as a busy fleet's other hosts would), into
 * `held`, until the server refuses one as full (53300); the caller ends them.
 */
export async function fillServer(held: Pg.Client[], o: { settleMs?: number } = {}): Promise<void> {
  const pg = createRequire(import.meta.url)('pg') as typeof Pg;
  // settleMs: full means refused that long. A connection whose client just went (a broker the test
  // killed) frees its slot only once its server process has exited, a moment after a refusal that
  // would otherwise end the filling: the next connection would find that slot free. (Not the
  // default: a broker that sees the server crowded gives its idle connection back meanwhile.)
  const settleMs = o.settleMs ?? 0;
  let filledAt = Date.now();
  for (;;) {
    const c = new pg.Client({ connectionString: PG_URL });
    c.on('error', () => undefined);
    try {
      await c.connect();
    } catch (e) {
      if ((e as { code?: string }).code !== '53300') throw e;
      if (Date.now() - filledAt >= settleMs) return;
      await new Promise((r) => setTimeout(r, 50));
      continue;
    }
    held.push(c);
    filledAt = Date.now();
    if (held.length >= 1000) throw new Error('the server never said it was full');
  }
}
