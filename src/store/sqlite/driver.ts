import { existsSync } from 'node:fs';
import type * as NodeModule from 'node:module';
import { load } from '../../core/builtins.js';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import { LanesError } from '../../core/errors.js';
import type { SqliteDb, SqliteDriverName } from './driver-types.js';
import { openNodeSqlite } from './node-sqlite.js';

export type { SqliteDb, SqliteDriverName, SqliteStatement } from './driver-types.js';

/**
 * The one place that chooses the SQLite driver: Node's own `node:sqlite` wherever it needs no
 * flag (Node 22.13+, 23.4+ and later: nothing to download or compile; on 22 it prints an
 * experimental warning at load, which node-sqlite.ts drops), better-sqlite3, a native addon and
 * an optional dependency, before (Node 20). LANES_SQLITE_DRIVER=better-sqlite3 (or node:sqlite)
 * chooses explicitly; both pass the same store tests.
 */
export function sqliteDriver(env: Record<string, string | undefined> = process.env): SqliteDriverName {
  const asked = env['LANES_SQLITE_DRIVER'];
  if (asked === 'better-sqlite3') return 'better-sqlite3';
  return hasNodeSqlite() ? 'node:sqlite' : 'better-sqlite3';
}

/** node:sqlite without --experimental-sqlite: Node 22.13+, 23.4+ and every later major. */
export function hasNodeSqlite(version = process.versions.node): boolean {
  const [maj = 0, minor = 0] = version.split('.').map(Number);
  return maj > 23 || (maj === 23 && minor >= 4) || (maj === 22 && minor >= 13);
}

/**
 * better-sqlite3 with its native addon loaded directly. Its own loader (the `bindings` package)
 * probes a dozen candidate directories with stat calls on every start; the CLI opens the store
 * in every agent tool call, so the addon is looked up once at its known place (build/Release, where
 * the install puts it) and handed over as `nativeBinding`. When it is not there, better-sqlite3's
 * own search runs as usual.
 */
let addon: object | null | undefined;

/**
 * Where Node's resolution finds it first from lanes' bundles (dist/): lanes' own node_modules,
 * where an install puts better-sqlite3 unless hoisted. One stat there spares the package lookup of
 * `require.resolve` and loading node:module (~1.5 ms of every call on Node 20); anywhere else
 * (hoisted, a workspace, the sources under test) the lookup runs as before.
 */
function nearAddon(): string | null {
  const file = join(bundleDir(), '..', 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
  return existsSync(file) ? file : null;
}

/**
 * The directory of the file this code runs from. In lanes' CommonJS bundles __dirname is that
 * directory already: a file URL's round trip (import.meta.url is made from __filename there, then
 * parsed back) cost each hook call on Node 20 ~1 ms of compiling and running node:url's code.
 */
function bundleDir(): string {
  return typeof __dirname === 'string' ? __dirname : dirname(fileURLToPath(import.meta.url));
}

function nativeBinding(): object | null {
  if (addon !== undefined) return addon;
  addon = null;
  const near = nearAddon();
  if (near) {
    // What require does with a .node file (Module._extensions['.node']), without node:module.
    const m = { exports: {} as object };
    process.dlopen(m, near);
    return (addon = m.exports);
  }
  // node:module only on this driver (Node 20) and only here: loading it cost every node:sqlite call ~1 M instructions.
  const req = (load('node:module') as typeof NodeModule).createRequire(import.meta.url);
  let file: string;
  try {
    file = join(dirname(req.resolve('better-sqlite3/package.json')), 'build', 'Release', 'better_sqlite3.node');
  } catch {
    return addon; // not installed: better-sqlite3's own search says so
  }
  // There but built for another Node (its ABI): thrown, named by the caller.
  if (existsSync(file)) addon = req(file) as object;
  return addon;
}

// better-sqlite3's JavaScript is bundled (scripts/build.mjs); only its native addon is looked up.
type BetterCtor = new (file: string, options: Record<string, unknown>) => SqliteDb;

function openBetterSqlite(file: string, options: { timeout: number; fileMustExist?: boolean }): SqliteDb {
  let binding: object | null;
  try {
    binding = nativeBinding();
  } catch (e) {
    throw missingAddon(e);
  }
  try {
    const Database = BetterSqlite3 as unknown as BetterCtor;
    return new Database(file, binding ? { ...options, nativeBinding: binding } : options);
  } catch (e) {
    // The addon's own search failed: missing, or built for another Node (its ABI).
    if (
      /NODE_MODULE_VERSION|Could not (locate the bindings file|find module root)|was compiled against|invalid ELF|Cannot find module/i.test(
        String((e as Error).message),
      )
    )
      throw missingAddon(e);
    throw e;
  }
}

function missingAddon(cause: unknown): LanesError {
  return new LanesError(
    'E_PLATFORM',
    `the SQLite store needs better-sqlite3's native addon on Node.js ${process.versions.node} (ABI ${process.versions.modules}), and it is missing or was built for another Node.js`,
    {
      hint: `rebuild the addon for this Node.js (npm rebuild better-sqlite3 in lanes' install, or reinstall lanes with it); or run lanes on Node.js 22.13 or newer, whose own SQLite (node:sqlite) needs no addon`,
      cause,
    },
  );
}

export function openDatabase(
  file: string,
  options: { timeout: number; fileMustExist?: boolean },
  driver: SqliteDriverName = sqliteDriver(),
): SqliteDb {
  if (driver === 'better-sqlite3') return openBetterSqlite(file, options);
  if (options.fileMustExist && !existsSync(file))
    throw Object.assign(new Error(`unable to open database file: ${file}`), { code: 'SQLITE_CANTOPEN' });
  return openNodeSqlite(file, options);
}
