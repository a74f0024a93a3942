import { dirname } from 'node:path';
import { LanesError } from '../../core/errors.js';
import { describeSpace, outOfSpace } from './full-disk.js';

/** Translates a SQLite error into a LanesError that names the file and what to do. */
export function sqliteError(e: unknown, file: string, busyTimeoutMs: number): unknown {
  if (e instanceof LanesError) return e;
  const code = (e as { code?: unknown }).code;
  if (typeof code !== 'string' || !code.startsWith('SQLITE_')) return e;
  const details = { file, sqlite: code };
  if (code === 'SQLITE_CORRUPT' || code.startsWith('SQLITE_CORRUPT_') || code === 'SQLITE_NOTADB') {
    return new LanesError('E_STORE_CORRUPT', `the store ${file} is corrupt or not a lanes store (${code})`, {
      hint: `move it aside (mv '${file}' '${file}.corrupt') and run lanes again to start a fresh store; live sessions must start again`,
      details,
      cause: e,
    });
  }
  if (code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_') || code === 'SQLITE_LOCKED') {
    return new LanesError(
      'E_STORE_LOCKED',
      `the store ${file} stayed locked by another process for more than ${busyTimeoutMs} ms`,
      {
        hint: `find the process with \`fuser '${file}'\` and let it finish (or stop it); nothing was changed`,
        details,
        cause: e,
      },
    );
  }
  const space = outOfSpace(e, file);
  if (space || (code === 'SQLITE_IOERR_WRITE' && /space/i.test(String((e as Error).message)))) {
    return new LanesError(
      'E_STORE_FULL',
      `the disk holding the store ${file} is full${describeSpace(space)}: nothing was changed`,
      {
        hint: `free some space on the filesystem of ${dirname(file)} (df -h '${dirname(file)}') and run the command again; commands that only read still work`,
        details: { ...details, ...(space ? { freeBytes: space.free } : {}) },
        cause: e,
      },
    );
  }
  if (
    code === 'SQLITE_CANTOPEN' ||
    code === 'SQLITE_READONLY' ||
    code.startsWith('SQLITE_IOERR') ||
    code.startsWith('SQLITE_READONLY_') ||
    code === 'SQLITE_PERM'
  ) {
    return new LanesError('E_STORE_IO', `cannot read or write the store ${file} (${code}: ${(e as Error).message})`, {
      hint: 'check that the directory exists, is writable by you, and its filesystem is healthy; or choose another store with --store PATH',
      details,
      cause: e,
    });
  }
  return new LanesError('E_STORE_IO', `store ${file}: ${(e as Error).message} (${code})`, { details, cause: e });
}
