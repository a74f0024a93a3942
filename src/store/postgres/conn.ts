import type * as Pg from 'pg';
import type { Pool, PoolClient, QueryResultRow } from 'pg';
import { LanesError } from '../../core/errors.js';
import { answers, brokerEndpoint, brokerGone, brokerTrouble } from './broker/endpoint.js';
import { brokerExpected, lateBroker } from './broker/late.js';
import { brokerPlace } from './broker/place.js';
import { KeptClient } from './kept-client.js';
import { IDLE_MS, loadPg, makePool } from './pg-module.js';
import type { PgOptions } from './pg-module.js';
import type { BrokerPlace } from './broker/place.js';
import { isRetryableTx, isTransient, pgError } from './errors.js';
import { versions, migrate } from './migrate.js';
import { PG_MIN_VERSION, PG_NOW } from './schema.js';
import { statementOf } from './statement.js';
import type { Statement } from './statement.js';
import { pgTarget } from './url.js';
import type { PgTarget } from './url.js';

export type { PgOptions } from './pg-module.js';

export type Q = <R extends QueryResultRow = QueryResultRow>(sql: string, args?: unknown[]) => Promise<R[]>;

export type { Statement } from './statement.js';

const CONNECT_TRIES = 4;
/** How often a store that missed its broker looks for it again (checkout). */
const BROKER_AGAIN_MS = 5000;

/** A pooler refused a named statement (missing or taken: 26000, 42P05): nothing ran. */
function unnamedOnly(e: unknown): boolean {
  const code = ((e as { cause?: unknown }).cause as { code?: unknown } | undefined)?.code;
  return code === '26000' || code === '42P05';
}

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
    const expected = brokerExpected(target.connectionString, options.direct);
    let conn: PgConn;
    try {
      conn = await PgConn.connect(pg, target, options, null);
    } catch (e) {
      const late = expected && !via ? await lateBroker(e, target.connectionString) : null; // not twice
      if (!late) throw e;
      return PgConn.connect(pg, target, options, late);
    }
    if (expected) conn.brokerMissedAt = Date.now();
    return conn;
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
        const { v, seen } = await versions(c, conn.t('meta'));
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
        return migrate(c, target, seen);
      }, 'connect');
      return conn;
    } catch (e) {
      // close(): the connection the check ran on is kept (kept-client.ts), and pool.end() waits for it.
      await conn.close().catch(() => undefined);
      throw e;
    }
  }

  /** A connection from the pool (the kept one is taken first, by the caller). */
  private async checkout(): Promise<PoolClient> {
    let rerouted = false;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.pool.connect();
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
  }

  private async withClient<T>(fn: (c: PoolClient) => Promise<T>, phase: 'connect' | 'query'): Promise<T> {
    if (this.brokerMissedAt && Date.now() - this.brokerMissedAt > BROKER_AGAIN_MS) await this.brokerAgain();
    const client = this.kept.take() ?? (await this.checkout());
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

  /**
   * One statement's rows, as withClient() would run it, without a callback: the path of every
   * claim and release (one async step and one closure fewer per call, a call site that sees one
   * function; bench/claims, where the clients' CPU is most of a cycle's cost).
   */
  private async rows<R extends QueryResultRow>(text: string, args: unknown[], name?: string): Promise<R[]> {
    if (this.brokerMissedAt && Date.now() - this.brokerMissedAt > BROKER_AGAIN_MS) await this.brokerAgain();
    const client = this.kept.take() ?? (await this.checkout());
    const generation = this.kept.generation;
    let broken = false;
    try {
      return (await client.query<R>(name === undefined ? { text, values: args } : { name, text, values: args })).rows;
    } catch (e) {
      broken = isTransient(e);
      throw pgError(e, this.target.display, 'query');
    } finally {
      this.kept.put(client, broken, generation);
    }
  }

  /** One statement outside a transaction (reads, and single-row updates that are atomic alone). */
  query<R extends QueryResultRow = QueryResultRow>(sql: string, args: unknown[] = []): Promise<R[]> {
    return this.rows<R>(sql, args);
  }

  /**
   * One statement that is a transaction of its own (a call of a server-side function), run again on
   * a serialization failure or deadlock (bounded), as tx() does.
   */
  async call<R extends QueryResultRow = QueryResultRow>(sql: Statement | string, args: unknown[] = []): Promise<R[]> {
    const stmt = typeof sql === 'string' ? this.statement(sql) : sql;
    for (let attempt = 1; ; attempt++) {
      // Named (prepared once per server connection) unless a pooler refused names (unnamedOnly):
      // run here, not in a function of its own, one async step fewer per statement.
      const named = this.named;
      try {
        return await this.rows<R>(stmt.text, args, named ? stmt.name : undefined);
      } catch (e) {
        if (named && unnamedOnly(e)) {
          // Nothing ran: the same attempt again, unnamed, as all later ones.
          this.named = false;
          attempt--;
          continue;
        }
        const cause = (e as { cause?: unknown }).cause ?? e;
        if (!isRetryableTx(cause) || attempt >= 8) throw e;
        await new Promise((r) => setTimeout(r, Math.random() * 10 * attempt));
      }
    }
  }

  /**
   * Whether named prepared statements work on this connection (not behind PgBouncer's transaction
   * pooling). A statement is named after its text, so a server connection holding the name holds
   * the same statement; it is parsed and planned once per server connection. Behind a pooler that
   * hands each transaction to any server connection (PgBouncer's transaction mode before 1.21) the
   * name is missing or taken: call() then runs it unnamed, as all later ones.
   */
  private named = true;

  /** Connected through this host's broker rather than to the server. */
  viaBroker = false;
  /** When this store went straight to the server because the broker did not answer (0: it did not). */
  private brokerMissedAt = 0;
  private closed = false;

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

  /** Direct only because the broker was late: a long-lived process (watcher, MCP server, page) goes
   *  through it once it answers, not holding a server connection of its own for the rest of its life. */
  private async brokerAgain(): Promise<void> {
    this.brokerMissedAt = Date.now();
    const place = brokerPlace(this.target.connectionString, process.env);
    if (place && (await answers(place.socket))) {
      await this.rerouted();
      if (this.viaBroker) this.brokerMissedAt = 0;
    }
  }

  /** A new pool through this host's broker as it is now (a new one started), else straight to the server. */
  private async rerouted(): Promise<boolean> {
    const via = await brokerEndpoint(this.target.connectionString, process.env);
    if (this.closed) return false; // closed meanwhile: no new pool nobody would end
    const old = this.pool;
    this.kept.drop();
    this.pool = this.remake(via);
    this.viaBroker = via !== null;
    this.named = !via;
    // Not waited for: a call holding a connection of the old pool gives it back within seconds.
    void old.end().catch(() => undefined);
    return true;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.kept.drop();
    await this.pool.end();
  }
}
