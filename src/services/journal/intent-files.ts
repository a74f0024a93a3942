import { closeSync, fsyncSync, openSync, readFileSync, readdirSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { crypto } from '../../core/builtins.js';
import { makeDirsSync } from '../../core/make-dirs.js';

/**
 * Intent files: what a step that git and the store cannot do in one transaction (a land, a
 * commit: git moves a ref, the store records it) is about to do, written durably before the
 * effect and removed once the outcome is journaled. One file per key (the ref being moved) in a
 * folder of the repository's common git directory; a kill in between leaves it for the next call.
 */
function fileOf(dir: string, key: string): string {
  return join(dir, `${crypto().createHash('sha256').update(key).digest('hex').slice(0, 24)}.json`);
}

/** Written whole (temporary file, fsync, rename, fsync of the directory). */
export function writeIntentFile(dir: string, key: string, intent: object): void {
  makeDirsSync(dir);
  const file = fileOf(dir, key);
  const temp = `${file}.${process.pid}.tmp`;
  const fd = openSync(temp, 'w', 0o600);
  try {
    writeSync(fd, JSON.stringify(intent));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, file);
  const d = openSync(dir, 'r');
  try {
    fsyncSync(d);
  } finally {
    closeSync(d);
  }
}

export function clearIntentFile(dir: string, key: string): void {
  rmSync(fileOf(dir, key), { force: true });
}

/** The intents left in `dir` that `valid` accepts (none: one failed readdir, the hot path's cost). */
export function readIntentFiles<T>(dir: string, valid: (x: T) => boolean): T[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const found: T[] = [];
  for (const n of names) {
    if (!n.endsWith('.json')) continue;
    try {
      const i = JSON.parse(readFileSync(join(dir, n), 'utf8')) as T;
      if (valid(i)) found.push(i);
    } catch {
      // A torn temporary never has the .json name; an unreadable one is left for doctor to name.
    }
  }
  return found;
}
