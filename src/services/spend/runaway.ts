import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { crypto } from '../../core/builtins.js';
import { lanesHome } from '../../core/paths.js';
import { totalTokens } from '../../core/usage.js';
import { git } from '../../git/run.js';
import type { SessionRecord } from '../../store/types.js';
import type { LanesContext } from '../context.js';
import { recordsOf } from '../hooks/records.js';
import type { Json } from '../state/state.js';
import { readRecordUsage } from './record-reader.js';

// Runaways (issue 50, item 3), seen by the per-host watcher: a session whose agent repeats the same
// failing tool call `repeats` times in a row (its agent's record says which failed: core/*-failures.ts), or
// spends tokens for `idleMs` while its worktree does not change (HEAD and git status, looked at
// every half minute at most). Each is flagged once per streak (journal budget.runaway with the
// evidence, notified as budget, in the report's Needs you); nothing is stopped.

export interface RunawayConfig {
  /** The same failing call this many times in a row (0: not watched). */
  repeats: number;
  /** Tokens spent this long with no change to the worktree (0: not watched). */
  idleMs: number;
}

export const DEFAULT_RUNAWAY: RunawayConfig = { repeats: 5, idleMs: 20 * 60_000 };
const LOOK_MS = 30_000;

interface Seen {
  fingerprint: string | null;
  since: number;
  tokensSince: number;
  lookedAt: number;
  flaggedIdle: boolean;
  flaggedCall: string | null;
}

/** What this watcher remembers of each session between its looks. */
const seen = new Map<string, Seen>();

async function fingerprint(worktree: string): Promise<string | null> {
  if (!existsSync(worktree)) return null;
  const out = await git(['status', '--porcelain=v2', '--branch', '-z', '--untracked-files=all'], {
    cwd: worktree,
  }).catch(() => null);
  return out === null ? null : crypto().createHash('sha256').update(out).digest('hex');
}

export interface RunawayFlag {
  session: string;
  why: 'repeats' | 'idle';
  text: string;
}

export async function runawayLook(
  ctx: LanesContext,
  live: SessionRecord[],
  states: Map<string, Json>,
  config: RunawayConfig,
  now = Date.now(),
): Promise<RunawayFlag[]> {
  const dir = join(lanesHome(ctx.env), 'spend');
  const flags: RunawayFlag[] = [];
  for (const id of [...seen.keys()]) if (!live.some((s) => s.id === id)) seen.delete(id);
  for (const s of live) {
    const records = recordsOf(states.get(s.id));
    if (!records.length) continue;
    let tokens = 0;
    let failing: { call: string; count: number } | null = null;
    for (const r of records) {
      const u = readRecordUsage(dir, r.agent, r.path);
      if (!u) continue;
      tokens += totalTokens(u);
      if (u.failing && (!failing || u.failing.count > failing.count)) failing = u.failing;
    }
    let m = seen.get(s.id);
    if (!m) {
      m = { fingerprint: null, since: now, tokensSince: tokens, lookedAt: 0, flaggedIdle: false, flaggedCall: null };
      seen.set(s.id, m);
    }
    if (config.repeats > 0 && failing && failing.count >= config.repeats && m.flaggedCall !== failing.call) {
      m.flaggedCall = failing.call;
      flags.push({
        session: s.id,
        why: 'repeats',
        text: `the same tool call failed ${failing.count} times in a row: ${failing.call}`,
      });
    }
    if (!failing) m.flaggedCall = null;
    if (config.idleMs <= 0 || !s.worktree || now - m.lookedAt < Math.min(LOOK_MS, config.idleMs / 2)) continue;
    m.lookedAt = now;
    const fp = await fingerprint(s.worktree);
    if (fp !== m.fingerprint) {
      Object.assign(m, { fingerprint: fp, since: now, tokensSince: tokens, flaggedIdle: false });
      continue;
    }
    if (!m.flaggedIdle && now - m.since >= config.idleMs && tokens > m.tokensSince) {
      m.flaggedIdle = true;
      const secs = Math.round((now - m.since) / 1000);
      const took = secs >= 120 ? `${Math.round(secs / 60)} min` : `${secs} s`;
      flags.push({
        session: s.id,
        why: 'idle',
        text: `${(tokens - m.tokensSince).toLocaleString('en-US')} tokens spent in ${took} with no change to its worktree`,
      });
    }
  }
  return flags;
}
