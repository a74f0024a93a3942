import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';

/**
 * better-sqlite3 with its native addon loaded directly. Its own loader (the `bindings` package)
 * probes a dozen candidate directories with stat calls on every start; the CLI opens the store
 * in every agent tool call, so the addon is looked up once at its known place (build/Release, where
 * the install puts it) and handed over as `nativeBinding`. When it is not there, better-sqlite3's
 * own search runs as usual.
 */
let addon: object | null | undefined;

function nativeBinding(): object | null {
  if (addon !== undefined) return addon;
  addon = null;
  try {
    const req = createRequire(import.meta.url);
    const file = join(dirname(req.resolve('better-sqlite3/package.json')), 'build', 'Release', 'better_sqlite3.node');
    if (existsSync(file)) addon = req(file) as object;
  } catch {
    addon = null;
  }
  return addon;
}

export function openDatabase(file: string, options: { timeout: number; fileMustExist?: boolean }): Database.Database {
  const binding = nativeBinding();
  return new Database(file, binding ? { ...options, nativeBinding: binding as unknown as string } : options);
}

export type { Database };
