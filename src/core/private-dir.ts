import { chmodSync, lstatSync } from 'node:fs';
import { dirname } from 'node:path';
import { LanesError } from './errors.js';
import { makeDirsSync } from './make-dirs.js';

/**
 * Creates (or checks) a directory that only this user can enter: mode 0700, owned by us, and a
 * real directory rather than a symlink someone planted. Parents are created 0700 as needed.
 */
export function ensurePrivateDir(path: string): string {
  try {
    makeDirsSync(path, 0o700);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    throw new LanesError('E_IO', `cannot create the private directory ${path}: ${err.code ?? err.message}`, {
      hint: err.code === 'ENOSPC' ? 'the disk is full; free some space' : `check the permissions of ${dirname(path)}`,
    });
  }
  const st = lstatSync(path);
  if (st.isSymbolicLink() || !st.isDirectory()) {
    throw new LanesError(
      'E_UNSAFE_DIR',
      `${path} is a symlink or not a directory; lanes keeps private files only in real directories`,
      {
        hint: `remove ${path} (rm '${path}') and run the command again`,
      },
    );
  }
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) {
    throw new LanesError('E_UNSAFE_DIR', `${path} belongs to uid ${st.uid}, not to you (uid ${uid})`, {
      hint: 'another user created it: set XDG_RUNTIME_DIR or LANES_HOME to a directory of your own',
    });
  }
  if ((st.mode & 0o077) !== 0) chmodSync(path, 0o700);
  return path;
}
