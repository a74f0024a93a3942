import { LanesError } from '../../core/errors.js';

export interface PgTarget {
  /** The connection string handed to pg, without lanes' own parameters. */
  connectionString: string;
  /** The URL without its password, for every message. */
  display: string;
  /** Schema holding lanes' tables (`?schema=NAME`, default `lanes`): several teams can share one database. */
  schema: string;
}

/** Parses `postgres://user:pass@host:port/db?schema=NAME` (lanes' parameter `schema` is removed before pg sees it). */
export function pgTarget(url: string): PgTarget {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new LanesError('E_USAGE', 'the PostgreSQL store URL is not a valid URL', {
      hint: 'write it as postgres://USER:PASSWORD@HOST:PORT/DATABASE',
    });
  }
  const schema = u.searchParams.get('schema') ?? 'lanes';
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new LanesError('E_USAGE', `invalid schema ${JSON.stringify(schema)} in the store URL`, {
      hint: 'a schema name is 1-63 characters of a-z, 0-9 and _, not starting with a digit',
    });
  }
  u.searchParams.delete('schema');
  const shown = new URL(u.toString());
  shown.password = '';
  return { connectionString: u.toString(), display: shown.toString(), schema };
}
