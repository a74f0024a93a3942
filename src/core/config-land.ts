import { timeoutOf } from './config-session.js';
import { fail } from './config-fail.js';
import type { ConfigSource } from './config-fail.js';

/**
 * `[land]` of lanes.toml: how `lanes land --queue` brings each ready session onto the target's tip
 * and what must pass on the result before it is published (issue 49, item 3).
 */
export interface LandConfig {
  /** A shell command run (sh -c) in the session's worktree on the result; exit 0 lets it land. */
  check: string | null;
  /** How a session's branch is brought onto the target's tip: replayed on it, or the target merged in. */
  strategy: 'rebase' | 'merge';
  /** How long the check may run. */
  timeoutMs: number;
}

export const DEFAULT_LAND_CONFIG: LandConfig = { check: null, strategy: 'rebase', timeoutMs: 30 * 60_000 };

export function validateLand(src: ConfigSource, t: Record<string, unknown>): Partial<LandConfig> {
  const out: Partial<LandConfig> = {};
  for (const [k, v] of Object.entries(t)) {
    if (k === 'check') {
      if (typeof v !== 'string' || v.trim() === '' || v.includes('\0'))
        fail(src, 'land', k, 'a shell command, such as "npm test"', v);
      out.check = v as string;
    } else if (k === 'strategy') {
      if (v !== 'rebase' && v !== 'merge') fail(src, 'land', k, '"rebase" or "merge"', v);
      out.strategy = v as LandConfig['strategy'];
    } else if (k === 'timeout') out.timeoutMs = timeoutOf(src, 'land', v, '20m');
    else fail(src, 'land', k, 'check, strategy or timeout (unknown key)');
  }
  return out;
}
