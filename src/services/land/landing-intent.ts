import { join } from 'node:path';
import { clearIntentFile, readIntentFiles, writeIntentFile } from '../journal/intent-files.js';
import type { LandMode } from './land.js';

/**
 * A landing in flight, written to the repository's common git directory before the target branch
 * moves and removed once the landing is complete and journaled. git moves a ref and the store
 * records it: two systems, no shared transaction. A SIGKILL between the two, or between moving
 * the target and bringing its checked-out worktree along, leaves this file behind, which says
 * exactly what was under way, so the next lanes call finishes it or records that it did not happen.
 */
export interface LandingIntent {
  v: 1;
  target: string;
  targetRef: string;
  branch: string;
  from: string;
  to: string;
  mode: LandMode;
  ticket: string;
  token: number;
  /** The worktree that has the target checked out, to be brought from `from` to `to`. */
  worktree: string | null;
  session: string;
  repo: string | null;
  /** The landing gate this landing held (whoever finishes it takes the same one). */
  gate: string;
  /** Local clock, ms. */
  at: number;
}

export function intentDir(commonDir: string): string {
  return join(commonDir, 'lanes', 'landing');
}

/** Written whole before the target moves (see intent-files.ts). */
export function writeIntent(commonDir: string, intent: LandingIntent): void {
  writeIntentFile(intentDir(commonDir), intent.targetRef, intent);
}

export function clearIntent(commonDir: string, targetRef: string): void {
  clearIntentFile(intentDir(commonDir), targetRef);
}

/** The landings left in flight in this repository (none: one failed stat, the hot path's cost). */
export function pendingIntents(commonDir: string): LandingIntent[] {
  return readIntentFiles<LandingIntent>(
    intentDir(commonDir),
    (i) => i.v === 1 && typeof i.targetRef === 'string' && typeof i.to === 'string',
  );
}

/** What a person is told about a landing left half-done, wherever lanes meets it. */
export function describeInterrupted(i: LandingIntent): string {
  return (
    `a land of ${i.branch.replace('refs/heads/', '')} into ${i.target} by session ${i.session} was interrupted` +
    (i.worktree
      ? `; ${i.target} may have moved while ${i.worktree} still holds the files from before it (git status there then shows the landed changes as staged reversals: do not commit them)`
      : '')
  );
}

/** The interrupted (or running) landing whose checked-out worktree is `worktree`, if any. */
export function landingInto(commonDir: string, worktree: string): LandingIntent | undefined {
  return pendingIntents(commonDir).find((i) => i.worktree === worktree);
}
