import { homeDir } from './builtins.js';
import { join } from 'node:path';

type Env = Record<string, string | undefined>;

/** `$LANES_HOME`, else `$XDG_STATE_HOME/lanes`, else `~/.local/state/lanes`. */
export function lanesHome(env: Env = process.env): string {
  if (env['LANES_HOME']) return env['LANES_HOME'];
  const state = env['XDG_STATE_HOME'] || join(homeDir(), '.local', 'state');
  return join(state, 'lanes');
}

/** The store location: `--store`, else `LANES_STORE`, else `$LANES_HOME/lanes.db`. */
export function storeLocation(explicit: string | undefined, env: Env = process.env): string {
  return explicit || env['LANES_STORE'] || join(lanesHome(env), 'lanes.db');
}

/**
 * Root of the per-session runtime directories. `$XDG_RUNTIME_DIR` is private to the user by
 * specification (0700, tmpfs); without it the directories live under `$LANES_HOME/run`, never at
 * a predictable path in a world-writable directory such as /tmp.
 */
export function runtimeRoot(env: Env = process.env): string {
  return env['XDG_RUNTIME_DIR'] ? join(env['XDG_RUNTIME_DIR'], 'lanes') : join(lanesHome(env), 'run');
}
