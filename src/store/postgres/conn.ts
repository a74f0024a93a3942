import type * as Pg from 'pg';
import type { Pool, PoolClient, QueryResultRow } from 'pg';
import { LanesError } from '../../core/errors.js';
import { brokerEndpoint, brokerGone, brokerTrouble } from './broker/endpoint.js';
import { KeptClient } from './kept-client.js';
import { IDLE_MS, loadPg, makePool } from './pg-module.js';
import type { PgOptions } from './pg-module.js';
import type { BrokerPlace } from './broker/place.js';
import { isRetryableTx, isTransient, newer, pgError } from './errors.js';
import { PG_MIGRATIONS, PG_MIN_VERSION, PG_NOW, PG_SCHEMA_VERSION } from './schema.js';
import { statementOf } from './statement.js';
import type { Statement } from './statement.js';
import { pgTarget } from './url.js';
import type { PgTarget } from './url.js';

export type { PgOptions } from './pg-module.js';

export type Q = <R extends QueryResultRow = QueryResultRow>(sql: string, args?: unknown[]) => Promise<R[]>;

export type { Statement } from './statement.js';

const CONNECT_TRIES = 4;

/**
 * A pool of pg connections with the store's transaction discipline. Nothing lives in a server
 * session (no session advisory locks, no SET, no named prepared statements, every table
 * schema-qualified), so PgBouncer in transaction mode works: each store call is one transaction.
 */
export class PgConn {
  /** Set once the schema is checked (and migrated) at open. */
  schemaVersion = 0;
  /** The connection kept between calls (kept-client.ts). */
  private readonly kept = new KeptClient(IDLE_MS);

  private constructor(
    private pool: Pool,
    readonly target: PgTarget,
    private readonly busyMs: number,
    /** What a new pool is made from (the broker this one talks to may go: rerouted()). */
    private readonly remake: (via: BrokerPlace | null) => Pool,
  ) {}

  /** `"schema".table` */
  t(table: string): string {
    return `"${this.target.schema}".${table}`;
  }

  static async open(url: string, options: PgOptions = {}): Promise<PgConn> {
    const target = pgTarget(url);
    const pg = loadPg();
    // Through this host's broker (broker/): a few server connections shared by every lanes process
    // of this user, instead of one per call. Anything wrong with it: straight to the server.
    const via = options.direct ? null : await brokerEndpoint(target.connectionString, process.env);
    if (via) {
      try {
        return await PgConn.connect(pg, target, options, via);
      } catch (e) {
        if (!brokerTrouble(e)) throw e;
      }
    }
    return PgConn.connect(pg, target, options, null);
  }

  private static async connect(
    pg: typeof Pg,
    target: PgTarget,
    options: PgOptions,
    via: BrokerPlace | null,
  ): Promise<PgConn> {
    const pool = makePool(pg, target, options, via);
    const conn = new PgConn(pool, target, options.busyTimeoutMs ?? 5000, (v) => makePool(pg, target, options, v));
    // A statement named on one server connection is not on the next one the broker lends.
    conn.named = !via;
    conn.viaBroker = via !== null;
    try {
      conn.schemaVersion = await conn.withClient(async (c) => {
        const { v, seen } = await conn.versions(c);
        // LANES_TEST_PG_MIN_VERSION: the tests raise the bar to see this refusal against their real server (no older server is installable here).
        const min = Number(process.env['LANES_TEST_PG_MIN_VERSION'] || PG_MIN_VERSION);
        if (v < min) {
          throw new LanesError(
            'E_STORE_VERSION',
            `the PostgreSQL server at ${target.display} is version ${Math.floor(v / 10000)}; lanes needs ${Math.floor(min / 10000)} or newer`,
            {
              hint: 'upgrade the server, or use the embedded SQLite store (unset LANES_STORE)',
              details: { store: target.display, serverVersion: v },
            },
          );
        }
        return conn.migrate(c, seen);
      }, 'connect');
      return conn;
    } catch (e) {
      // close(): the connection the check ran on is kept (kept-client.ts), and pool.end() waits for it.
      await conn.close().catch(() => undefined);
      throw e;
    }
  }

  /** The server's and the schema's versions in one round trip (a store not created yet costs two): every hook call opens the store. */
  private async versions(c: PoolClient): Promise<{ v: number; seen: number }> {
    try {
      const [row] = (
        await c.query<{ v: string; seen: string | null }>(
          `SELECT current_setting('server_version_num') AS v, (SELECT value FROM ${this.t('meta')} WHERE key = 'schema_version') AS seen`,
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

  private async readVersion(c: PoolClient, inTx = false): Promise<number> {
    // One plain query (information_schema is slow to ask, and this runs at every open); a missing
    // schema or table (42P01, 3F000) means version 0. In a savepoint when inside the migration's transaction.
    if (inTx) await c.query('SAVEPOINT lanes_version');
    try {
      const row = await c.query<{ value: string }>(`SELECT value FROM ${this.t('meta')} WHERE key = 'schema_version'`);
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
  async migrate(c: PoolClient, known?: number): Promise<number> {
    const seen = known ?? (await this.readVersion(c));
    if (seen > PG_SCHEMA_VERSION) throw newer(this.target.display, seen);
    if (seen === PG_SCHEMA_VERSION) return seen;
    await c.query('BEGIN');
    try {
      // One migrator at a time per schema; the others wait here, then see the new version.
      await c.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`lanes:migrate:${this.target.schema}`]);
      const start = await this.readVersion(c, true);
      if (start > PG_SCHEMA_VERSION) throw newer(this.target.display, start);
      for (let v = start; v < PG_SCHEMA_VERSION; v++)
        await c.query((PG_MIGRATIONS[v] as (s: string) => string)(`"${this.target.schema}"`));
      await c.query(
        `INSERT INTO ${this.t('meta')} (key, value) VALUES ('schema_version', $1) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
        [String(PG_SCHEMA_VERSION)],
      );
      await c.query('COMMIT');
      return PG_SCHEMA_VERSION;
    } catch (e) {
      await c.query('ROLLBACK').catch(() => undefined);
      throw e;
    }
  }

  private async withClient<T>(fn: (c: PoolClient) => Promise<T>, phase: 'connect' | 'query'): Promise<T> {
    let client = this.kept.take();
    let rerouted = false;
    for (let attempt = 1; client === null; attempt++) {
      try {
        client = await this.pool.connect();
      } catch (e) {
        // The broker this long-lived pool talked to left (idle a minute, killed, an upgrade): a new
        // one, or the server itself, and this attempt again.
        if (this.viaBroker && !rerouted && brokerGone(e)) {
          rerouted = await this.rerouted();
          continue;
        }
        // Bounded: a server that restarts gets ~1.5 s; one that is down fails fast after that.
        if (!isTransient(e) || attempt >= CONNECT_TRIES) throw pgError(e, this.target.display, 'connect');
        await new Promise((r) => setTimeout(r, 100 * 2 ** attempt));
      }
    }
    // A close() (or a new pool) while fn runs: the client goes back to the pool that waits for it.
    const generation = this.kept.generation;
    let broken = false;
    try {
      return await fn(client);
    } catch (e) {
      broken = isTransient(e);
      throw pgError(e, this.target.display, phase);
    } finally {
      this.kept.put(client, broken, generation);
    }
  }

  /** One statement outside a transaction (reads, and single-row updates that are atomic alone). */
  async query<R extends QueryResultRow = QueryResultRow>(sql: string, args: unknown[] = []): Promise<R[]> {
    return this.withClient(async (c) => (await c.query<R>(sql, args)).rows, 'query');
  }

  /**
   * One statement that is a transaction of its own (a call of a server-side function), run again on
   * a serialization failure or deadlock (bounded), as tx() does.
   */
  async call<R extends QueryResultRow = QueryResultRow>(sql: Statement | string, args: unknown[] = []): Promise<R[]> {
    const stmt = typeof sql === 'string' ? this.statement(sql) : sql;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.prepared<R>(stmt, args);
      } catch (e) {
        const cause = (e as { cause?: unknown }).cause ?? e;
        if (!isRetryableTx(cause) || attempt >= 8) throw e;
        await new Promise((r) => setTimeout(r, Math.random() * 10 * attempt));
      }
    }
  }

  /** Whether named prepared statements work on this connection (not behind PgBouncer's transaction pooling). */
  private named = true;

  /** Connected through this host's broker rather than to the server. */
  viaBroker = false;

  /**
   * A named prepared statement, parsed and planned once per server connection; named after its
   * text, so a server connection holding the name holds the same statement. Behind a pooler that
   * hands each transaction to any server connection (PgBouncer's transaction mode before 1.21) the
   * name is missing or taken (26000, 42P05): nothing ran, so it runs unnamed, as all later ones do.
   */
  private async prepared<R extends QueryResultRow>({ name, text }: Statement, args: unknown[]): Promise<R[]> {
    if (!this.named) return this.query<R>(text, args);
    try {
      return await this.withClient(async (c) => (await c.query<R>({ name, text, values: args })).rows, 'query');
    } catch (e) {
      const code = ((e as { cause?: unknown }).cause as { code?: unknown } | undefined)?.code;
      if (code !== '26000' && code !== '42P05') throw e;
      this.named = false;
      return this.query<R>(text, args);
    }
  }

  /** A statement named after its text (hashName), so a server connection holding the name holds the same statement. */
  statement(text: string): Statement {
    return statementOf(text);
  }

  /** lock_timeout for one transaction, as set_config() takes it. */
  get lockTimeout(): string {
    return String(Math.max(1, Math.floor(this.busyMs)));
  }

  /**
   * BEGIN … COMMIT with the server's clock; rolled back whole on any error; run again on a
   * serialization failure or deadlock (bounded). lock_timeout bounds waits for other clients.
   */
  async tx<T>(fn: (q: Q, now: number) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.withClient(async (c) => {
          await c.query('BEGIN');
          let committing = false;
          try {
            // lock_timeout for this transaction only (set_config(…, true)) and the clock, in one round trip.
            const now = Number(
              (
                await c.query<{ now: string }>(`SELECT set_config('lock_timeout', $1, true), ${PG_NOW} AS now`, [
                  this.lockTimeout,
                ])
              ).rows[0]?.now,
            );
            const q: Q = async (sql, args = []) => (await c.query(sql, args)).rows;
            const result = await fn(q, now);
            committing = true;
            await c.query('COMMIT');
            return result;
          } catch (e) {
            if (!committing || !isTransient(e)) await c.query('ROLLBACK').catch(() => undefined);
            throw committing && isTransient(e) ? pgError(e, this.target.display, 'commit') : e;
          }
        }, 'query');
      } catch (e) {
        const cause = (e as { cause?: unknown }).cause ?? e;
        if (!isRetryableTx(cause) || attempt >= 8) throw e;
        await new Promise((r) => setTimeout(r, Math.random() * 10 * attempt));
      }
    }
  }

  /** A new pool through this host's broker as it is now (a new one started), else straight to the server. */
  private async rerouted(): Promise<boolean> {
    const via = await brokerEndpoint(this.target.connectionString, process.env);
    const old = this.pool;
    this.kept.drop();
    this.pool = this.remake(via);
    this.viaBroker = via !== null;
    this.named = !via;
    await old.end().catch(() => undefined);
    return true;
  }

  async close(): Promise<void> {
    this.kept.drop();
    await this.pool.end();
  }
}
