import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { lanesHandlerPattern } from '../install-spec.js';
import { cursorInstall } from './install.js';

/**
 * Whether lanes' own Cursor hooks are installed for these workspace roots or for the user. Cursor
 * runs Claude Code's hooks as well; when its own lanes hooks are there, the Claude Code entry point
 * stays silent for Cursor's events so that lanes acts once per event.
 */
export function cursorHooksInstalled(roots: string[], home = homedir()): boolean {
  const mine = lanesHandlerPattern('cursor');
  for (const file of [...roots.map((r) => join(r, cursorInstall.projectFile)), join(home, cursorInstall.userFile)]) {
    try {
      if (mine.test(readFileSync(file, 'utf8'))) return true;
    } catch {
      // no such file: not installed there
    }
  }
  return false;
}
