import { homedir } from 'node:os';
import type { carryProjectHooks } from '../agents/carry-hooks.js';
import type { Lanes } from '../index.js';

/** What agents/carry-hooks.ts carried (agents and files) and which agents' configs it could not edit. */
export type CarryReport = ReturnType<typeof carryProjectHooks>;

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
  return r;
}
