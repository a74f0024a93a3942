import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * A directory as the system names it to a process running in it (symlinks resolved, as getcwd
 * gives it), else as given, made absolute (it may be gone).
 */
export function realDir(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return resolve(dir);
  }
}
