import { chmodSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { git } from './run.js';
import { makeDirsSync } from '../core/make-dirs.js';

export const GUARD_MARKER = '# lanes guard:';
const CHAINED = '.lanes-chained';

/** The hooks directory git really uses (honours core.hooksPath). */
export async function hooksDir(cwd: string): Promise<string> {
  return (await git(['rev-parse', '--path-format=absolute', '--git-path', 'hooks'], { cwd })).trim();
}

export interface HookState {
  name: string;
  path: string;
  installed: boolean;
  /** An earlier hook of the same name that lanes' hook runs first. */
  chained: boolean;
}

export function hookState(dir: string, name: string): HookState {
  const path = join(dir, name);
  const installed = existsSync(path) && readFileSync(path, 'utf8').includes(GUARD_MARKER);
  return { name, path, installed, chained: existsSync(path + CHAINED) };
}

/**
 * Installs `body` as hook `name`. An existing hook that is not lanes' own is kept as
 * `<name>.lanes-chained` and run first by lanes' hook (its failure still blocks), never overwritten.
 */
export function installHook(dir: string, name: string, body: string): HookState {
  makeDirsSync(dir);
  const path = join(dir, name);
  const state = hookState(dir, name);
  if (existsSync(path) && !state.installed) renameSync(path, path + CHAINED);
  writeFileSync(path, body, { mode: 0o755 });
  chmodSync(path, 0o755);
  return hookState(dir, name);
}

/** Removes lanes' hook and puts a chained original back in its place. */
export function uninstallHook(dir: string, name: string): boolean {
  const state = hookState(dir, name);
  if (!state.installed) return false;
  rmSync(state.path);
  if (state.chained) renameSync(state.path + CHAINED, state.path);
  return true;
}
