import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { crypto } from '../../core/builtins.js';
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

function intentFile(commonDir: string, targetRef: string): string {
  return join(
    intentDir(commonDir),
    `${crypto().createHash('sha256').update(targetRef).digest('hex').slice(0, 24)}.json`,
  );
}

/** Written whole (temporary file, fsync, rename, fsync of the directory) before the target moves. */
export function writeIntent(commonDir: string, intent: LandingIntent): void {
  const dir = intentDir(commonDir);
  mkdirSync(dir, { recursive: true });
  const file = intentFile(commonDir, intent.targetRef);
  const temp = `${file}.${process.pid}.tmp`;
  const fd = openSync(temp, 'w', 0o600);
  try {
    writeSync(fd, JSON.stringify(intent));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, file);
  const d = openSync(dir, 'r');
  try {
    fsyncSync(d);
  } finally {
    closeSync(d);
  }
}

export function clearIntent(commonDir: string, targetRef: string): void {
  rmSync(intentFile(commonDir, targetRef), { force: true });
}

/** The landings left in flight in this repository (none: one failed stat, the hot path's cost). */
export function pendingIntents(commonDir: string): LandingIntent[] {
  let names: string[];
  try {
    names = readdirSync(intentDir(commonDir));
  } catch {
    return [];
  }
  const found: LandingIntent[] = [];
  for (const n of names) {
    if (!n.endsWith('.json')) continue;
    try {
      const i = JSON.parse(readFileSync(join(intentDir(commonDir), n), 'utf8')) as LandingIntent;
      if (i.v === 1 && typeof i.targetRef === 'string' && typeof i.to === 'string') found.push(i);
    } catch {
      // A torn temporary never has the .json name; an unreadable one is left for doctor to name.
    }
  }
  return found;
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

export const FINISH_HINT =
  'run `lanes doctor --fix` (or `lanes land` again) to finish it: lanes brings the worktree to the landed files, or records that nothing was published';

/** The interrupted (or running) landing whose checked-out worktree is `worktree`, if any. */
export function landingInto(commonDir: string, worktree: string): LandingIntent | undefined {
  return pendingIntents(commonDir).find((i) => i.worktree === worktree);
}
