import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * A directory as the system names it to the process running in it (symlinks resolved: what an
 * agent records as its working directory), else as given, made absolute (it may be gone).
 */
export function realDir(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return resolve(dir);
  }
}
