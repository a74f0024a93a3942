import { LanesError } from '../../core/errors.js';
import { PG_SCHEMA_VERSION } from './schema.js';

// PostgreSQL and network failures as one-line LanesErrors that name the server (never its
// password) and what to do.

const NETWORK = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNRESET',
  'EPIPE',
]);

/** Errors worth one more try on a fresh connection (the server restarting, a dropped idle connection). */
export function isTransient(e: unknown): boolean {
  const code = String((e as { code?: unknown }).code ?? '');
  const msg = String((e as Error).message ?? '');
  return (
    NETWORK.has(code) ||
    code === '57P01' ||
    code === '57P02' ||
    code === '57P03' ||
    /Connection terminated|timeout expired|Connection ended|not queryable/i.test(msg)
  );
}

/** Errors after which the transaction can simply run again (serialization failure, deadlock). */
export function isRetryableTx(e: unknown): boolean {
  const code = (e as { code?: unknown }).code;
  return code === '40001' || code === '40P01';
}

export function pgError(e: unknown, display: string, phase: 'connect' | 'query' | 'commit'): unknown {
  if (e instanceof LanesError) return e;
  const code = String((e as { code?: unknown }).code ?? '');
  const msg = String((e as Error).message ?? e);
  const details = { store: display, code };
  // PgBouncer reports a failed login and an unknown database as protocol errors (08P01).
  const bouncerAuth = code === '08P01' && /authentication failed|password/i.test(msg);
  const bouncerNoDb = code === '08P01' && /no such database/i.test(msg);
  if (code === '28P01' || code === '28000' || bouncerAuth) {
    return new LanesError('E_STORE_AUTH', `the PostgreSQL server at ${display} refused the login (${msg})`, {
      hint: "check the user and password in LANES_STORE (or [store] url), and the server's pg_hba.conf",
      details,
      cause: e,
    });
  }
  if (code === '3D000' || bouncerNoDb) {
    return new LanesError('E_STORE_MISSING', `the database of ${display} does not exist (${msg})`, {
      hint: 'create it (createdb -h HOST -p PORT -U USER NAME) or fix the database name in the URL',
      details,
      cause: e,
    });
  }
  if (code === '55P03') {
    return new LanesError('E_STORE_LOCKED', `the store ${display} stayed locked by another client for too long`, {
      hint: 'another lanes process is holding a lock in a long transaction; try again. Nothing was changed',
      details,
      cause: e,
    });
  }
  if (code === '53100') {
    return new LanesError('E_STORE_FULL', `the PostgreSQL server at ${display} is out of disk space`, {
      hint: 'free space on the server; nothing was changed',
      details,
      cause: e,
    });
  }
  if (code === '42501') {
    return new LanesError('E_STORE_AUTH', `the PostgreSQL user of ${display} lacks a privilege lanes needs (${msg})`, {
      hint: 'grant it CREATE on the database (for the first migration) and use of the lanes schema',
      details,
      cause: e,
    });
  }
  if (/Query read timeout/i.test(msg)) {
    // The server (or the way to it: a network, a broker whose server connection hangs) took a
    // statement and said nothing back within the bound.
    return new LanesError('E_STORE_IO', `the PostgreSQL server at ${display} did not answer in time`, {
      hint: 'the server or the network to it is stuck; a change may or may not have been applied: check with `lanes ls` / `lanes claims` before running it again (LANES_PG_TIMEOUT_MS sets the bound)',
      details,
      cause: e,
    });
  }
  if (isTransient(e)) {
    if (phase === 'connect') {
      return new LanesError('E_STORE_IO', `cannot reach the PostgreSQL server at ${display} (${code || msg})`, {
        hint: 'check that the server runs and that host and port in LANES_STORE are right; lanes retried a few times',
        details,
        cause: e,
      });
    }
    return new LanesError('E_STORE_IO', `lost the connection to the PostgreSQL server at ${display} (${code || msg})`, {
      hint:
        phase === 'commit'
          ? 'the connection broke while committing, so the change may or may not have been applied: check with `lanes ls` / `lanes claims`, then retry'
          : 'the change was not applied; run the command again when the server is reachable',
      details,
      cause: e,
    });
  }
  return new LanesError('E_STORE_IO', `store ${display}: ${msg}${code ? ` (${code})` : ''}`, { details, cause: e });
}

/** A store whose schema is newer than this lanes: refused untouched. */
export function newer(display: string, seen: number): LanesError {
  return new LanesError(
    'E_STORE_NEWER',
    `the store ${display} has schema version ${seen}, newer than this lanes understands (${PG_SCHEMA_VERSION})`,
    {
      hint: 'upgrade lanes on this machine; the store was not changed',
      details: { store: display, schemaVersion: seen, supported: PG_SCHEMA_VERSION },
    },
  );
}
