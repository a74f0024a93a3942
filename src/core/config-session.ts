import { parseDuration } from './duration.js';
import { fail } from './config-fail.js';
import type { ConfigSource } from './config-fail.js';

/** `[session]` of lanes.toml: what runs in each new session's worktree at its start and its end. */
export interface SessionConfig {
  /** A shell command run (sh -c) in the worktree, with the session's environment, when it starts. */
  setup: string | null;
  /** The same, when it ends (before its work is snapshotted and its claims released). */
  teardown: string | null;
  /** How long either may run. */
  timeoutMs: number;
}

export const DEFAULT_SESSION_CONFIG: SessionConfig = { setup: null, teardown: null, timeoutMs: 10 * 60_000 };

export function validateSession(src: ConfigSource, t: Record<string, unknown>): Partial<SessionConfig> {
  const out: Partial<SessionConfig> = {};
  for (const [k, v] of Object.entries(t)) {
    if (k === 'setup' || k === 'teardown') {
      if (typeof v !== 'string' || v.trim() === '' || v.includes('\0'))
        fail(src, 'session', k, 'a shell command, such as "createdb -T app_template \\"$DB_NAME\\""', v);
      out[k] = v as string;
    } else if (k === 'timeout') out.timeoutMs = timeoutOf(src, 'session', v, '5m');
    else fail(src, 'session', k, 'setup, teardown or timeout (unknown key)');
  }
  return out;
}

/** A `timeout` key's duration (at least 1 s), or the file's error naming the table and an example. */
export function timeoutOf(src: ConfigSource, table: string, v: unknown, example: string): number {
  let ms = NaN;
  try {
    ms = typeof v === 'string' ? parseDuration(v, 'timeout') : NaN;
  } catch {
    // told below
  }
  if (!(ms >= 1000)) fail(src, table, 'timeout', `a duration of at least 1s, such as "${example}"`, v);
  return ms;
}
