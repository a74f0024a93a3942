import { homedir } from 'node:os';
import type { Lanes } from '../index.js';

export interface CarryReport {
  /** Agents whose project hooks the new worktree now has, and in which files. */
  carried: { agent: string; files: string[] }[];
  /** Agents whose config in the new worktree could not be edited, with why. */
  failed: { agent: string; reason: string }[];
}

/**
 * lanes' project hooks of the worktree this runs in go to a worktree lanes just made, for every
 * door that makes one (lanes start --worktree, lanes new, Claude Code's WorktreeCreate), and what
 * lanes wrote there is noted so that it is not taken for the session's work (made-by-lanes.ts).
 */
export async function carryHooksInto(lanes: Lanes, worktree: string): Promise<CarryReport | null> {
  const from = (await lanes.repository())?.worktreeRoot;
  if (!from) return null;
  const { carryProjectHooks } = await import('../agents/carry-hooks.js');
  const r = carryProjectHooks(from, worktree, process.env['HOME'] || homedir());
  await lanes.worktrees.markCarried(
    worktree,
    r.carried.flatMap((c) => c.files),
  );
  return { carried: r.carried, failed: r.failed };
}
