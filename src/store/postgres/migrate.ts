import type { PoolClient } from 'pg';
import { newer } from './errors.js';
import { PG_MIGRATIONS, PG_SCHEMA_VERSION } from './schema.js';
import type { PgTarget } from './url.js';

// The schema's version at open, and the migrations that bring it to this one (conn.ts runs them).

/** The server's and the schema's versions in one round trip (a store not created yet costs two): every hook call opens the store. */
export async function versions(c: PoolClient, meta: string): Promise<{ v: number; seen: number }> {
  try {
    const [row] = (
      await c.query<{ v: string; seen: string | null }>(
        `SELECT current_setting('server_version_num') AS v, (SELECT value FROM ${meta} WHERE key = 'schema_version') AS seen`,
      )
    ).rows;
    return { v: Number(row?.v ?? 0), seen: Number(row?.seen ?? 0) };
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    if (code !== '42P01' && code !== '3F000') throw e;
    const [row] = (await c.query<{ server_version_num: string }>('SHOW server_version_num')).rows;
    return { v: Number(row?.server_version_num ?? 0), seen: 0 };
  }
}

async function readVersion(c: PoolClient, meta: string, inTx = false): Promise<number> {
  // One plain query (information_schema is slow to ask, and this runs at every open); a missing
  // schema or table (42P01, 3F000) means version 0. In a savepoint when inside the migration's transaction.
  if (inTx) await c.query('SAVEPOINT lanes_version');
  try {
    const row = await c.query<{ value: string }>(`SELECT value FROM ${meta} WHERE key = 'schema_version'`);
    if (inTx) await c.query('RELEASE SAVEPOINT lanes_version');
    return Number(row.rows[0]?.value ?? 0);
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    if (code !== '42P01' && code !== '3F000') throw e;
    if (inTx) await c.query('ROLLBACK TO SAVEPOINT lanes_version');
    return 0;
  }
}

/** Brings the schema to this version; refuses a newer one untouched. */
export async function migrate(c: PoolClient, target: PgTarget, known?: number): Promise<number> {
  const meta = `"${target.schema}".meta`;
  const seen = known ?? (await readVersion(c, meta));
  if (seen > PG_SCHEMA_VERSION) throw newer(target.display, seen);
  if (seen === PG_SCHEMA_VERSION) return seen;
  await c.query('BEGIN');
  try {
    // One migrator at a time per schema; the others wait here, then see the new version.
    await c.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`lanes:migrate:${target.schema}`]);
    const start = await readVersion(c, meta, true);
    if (start > PG_SCHEMA_VERSION) throw newer(target.display, start);
    for (let v = start; v < PG_SCHEMA_VERSION; v++)
      await c.query((PG_MIGRATIONS[v] as (s: string) => string)(`"${target.schema}"`));
    await c.query(
      `INSERT INTO ${meta} (key, value) VALUES ('schema_version', $1) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
      [String(PG_SCHEMA_VERSION)],
    );
    await c.query('COMMIT');
    return PG_SCHEMA_VERSION;
  } catch (e) {
    await c.query('ROLLBACK').catch(() => undefined);
    throw e;
  }
}
