import { existsSync } from 'node:fs';
import { LanesError } from '../../core/errors.js';
import { supportedNode, unsupportedNodeText } from '../../core/node-version.js';
import type { SqliteDb } from './driver-types.js';
import { openNodeSqlite } from './node-sqlite.js';

export type { SqliteDb, SqliteStatement } from './driver-types.js';

/** The store's one SQLite driver: Node's own `node:sqlite` (Node 22.13+), nothing to compile. */
export const SQLITE_DRIVER = 'node:sqlite';

export function openDatabase(file: string, options: { timeout: number; fileMustExist?: boolean }): SqliteDb {
  // The library imported on an older Node.js (the CLI says so before it loads anything).
  if (!supportedNode())
    throw new LanesError('E_PLATFORM', unsupportedNodeText().split('\n')[0]!, {
      hint: 'run lanes on Node.js 22.13 or newer: its own SQLite (node:sqlite) holds the store',
    });
  if (options.fileMustExist && !existsSync(file))
    throw Object.assign(new Error(`unable to open database file: ${file}`), { code: 'SQLITE_CANTOPEN' });
  return openNodeSqlite(file, options);
}
