import { chmodSync, closeSync, constants, lstatSync, openSync, readSync, statSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { dirname } from 'node:path';
import { LanesError } from '../../core/errors.js';
import { makeDirsSync } from '../../core/make-dirs.js';

/**
 * The store file, created 0600 before SQLite opens it (SQLite gives the WAL and SHM files the
 * database file's mode), or tightened to 0600 when an earlier lanes created it readable by others.
 * One stat on the common path: every hook call opens the store.
 */
export function closedToOthers(file: string): void {
  let st: Stats | undefined;
  try {
    st = statSync(file, { throwIfNoEntry: false });
  } catch (e) {
    throw unusableDir(file, e); // a part of its path is a file (ENOTDIR), or closed to us
  }
  if (!st) {
    // Its directory too, made only here: a store that exists needs no mkdir (a recursive one in
    // every hook call, and on Node 20 compiling mkdirSync's code, ~0.3 M instructions).
    try {
      makeDirsSync(dirname(file), 0o700);
    } catch (e) {
      throw unusableDir(file, e);
    }
    try {
      closeSync(
        openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600),
      );
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') return; // another process created it first, 0600 too
      throw new LanesError('E_STORE_IO', `cannot create the store ${file} (${code ?? (e as Error).message})`, {
        hint:
          code === 'ENOSPC' || code === 'EDQUOT'
            ? `the disk holding ${dirname(file)} is full: free some space`
            : `check the permissions of ${dirname(file)}`,
        details: { file, code },
      });
    }
    return;
  }
  // The store path is never a weapon: a device (/dev/null), a FIFO, a socket or a directory, or a
  // link to one, is refused and left as it is (a chmod of /dev/null by root breaks the machine).
  if (!st.isFile()) throw notAStore(file, kindOf(st), 'name a regular file for the store (or leave LANES_STORE unset)');
  if ((st.mode & 0o077) === 0 || st.uid !== process.getuid?.()) return;
  // Tightened only once it is known to be a SQLite database (or empty, which SQLite makes one);
  // anything else is left as it is, and SQLite's open then says it is not a store (E_STORE_CORRUPT).
  if (st.size > 0 && !hasSqliteHeader(file)) return;
  for (const f of [file, `${file}-wal`, `${file}-shm`]) {
    try {
      if (lstatSync(f).isFile()) chmodSync(f, 0o600);
    } catch {
      // a WAL or SHM that is not there (no one has the store open) needs nothing
    }
  }
}

/** The store's directory cannot be made or entered: named, with where its path came from. */
function unusableDir(file: string, e: unknown): LanesError {
  const code = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
  const dir = dirname(file);
  const why =
    code === 'ENOTDIR' ? `a part of ${dir} is a file, not a directory` : `${dir} cannot be made or entered (${code})`;
  return new LanesError('E_STORE_IO', `cannot use the store ${file}: ${why}`, {
    hint:
      code === 'ENOSPC' || code === 'EDQUOT'
        ? `the disk holding ${dir} is full: free some space`
        : 'point LANES_HOME (or LANES_STORE, or --store) at a directory of your own on a writable filesystem',
    details: { file, code },
  });
}

function kindOf(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

function notAStore(file: string, what: string, hint: string): LanesError {
  return new LanesError('E_STORE_IO', `the store path ${file} is ${what}: refused, and left as it is`, {
    hint,
    details: { file },
  });
}

/** The first 16 bytes of every SQLite database file: "SQLite format 3" and a NUL. */
function hasSqliteHeader(file: string): boolean {
  const fd = openSync(file, constants.O_RDONLY);
  try {
    const head = Buffer.alloc(16);
    return readSync(fd, head, 0, 16, 0) === 16 && head.toString('latin1') === 'SQLite format 3\0';
  } catch {
    return false;
  } finally {
    closeSync(fd);
  }
}
