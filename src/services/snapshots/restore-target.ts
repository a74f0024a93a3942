import { lstatSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { LanesError } from '../../core/errors.js';
import { makeDirsSync } from '../../core/make-dirs.js';

const HINT = 'name a new directory, or omit --into for a new worktree';

/**
 * The directory `restore --into` may write into: a new one (created here) or an existing empty
 * one, read from the caller's cwd. Never a symlink (the files would land in the link's target,
 * somewhere the user did not name), a file, or a directory with anything in it.
 */
export function prepareRestoreTarget(into: string, cwd: string): string {
  if (into.trim() === '') throw new LanesError('E_USAGE', '--into needs a directory', { hint: HINT });
  const dir = resolve(cwd, into);
  let isNew = false;
  try {
    const st = lstatSync(dir);
    if (st.isSymbolicLink())
      throw new LanesError('E_USAGE', `${dir} is a symlink; lanes restores only into a real directory`, {
        hint: `${HINT} (lanes never writes through a link)`,
      });
    if (!st.isDirectory()) throw new LanesError('E_USAGE', `${dir} exists and is not a directory`, { hint: HINT });
    if (readdirSync(dir).length > 0)
      throw new LanesError('E_USAGE', `${dir} is not empty; lanes restores only into a new or empty directory`, {
        hint: HINT,
      });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') isNew = true;
    else if ((e as NodeJS.ErrnoException).code === 'ENOTDIR')
      throw new LanesError('E_USAGE', `${dir}: a part of this path is a file, not a directory`, { hint: HINT });
    else throw e;
  }
  if (isNew) {
    try {
      makeDirsSync(dir);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOTDIR' || code === 'EEXIST')
        throw new LanesError('E_USAGE', `${dir}: a part of this path is a file, not a directory`, { hint: HINT });
      if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS')
        throw new LanesError('E_USAGE', `cannot create ${dir}: ${code}`, { hint: 'choose a directory you can write' });
      if (code === 'ENOSPC')
        throw new LanesError('E_IO', `the disk is full: cannot create ${dir}`, {
          hint: 'free some space and run it again',
        });
      throw e;
    }
  }
  return dir;
}
