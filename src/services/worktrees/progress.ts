// Where each session's work stands in git, for the dashboard: its branch, how many files are
// uncommitted and how many commits it is ahead of the repository's main branch. Read from the
// session's worktree, so only for sessions of this host whose worktree still exists.
import { GIT_PARALLEL, inBatches } from '../../core/in-batches.js';
import { existsSync } from 'node:fs';
import { commitsAhead, status } from '../../git/status.js';
import { currentBranch, defaultBranch } from '../../git/worktree.js';
import type { SessionRecord } from '../../store/types.js';
import type { LanesContext } from '../context.js';

export interface SessionProgress {
  session: string;
  worktree: string;
  /** The checked-out branch (short name), or null when HEAD is detached. */
  branch: string | null;
  /** Files `git status` lists (tracked changes and untracked files that are not ignored). */
  uncommitted: number;
  /** The repository's main branch the session is compared with, or null when none is found. */
  target: string | null;
  /** Commits on the session's HEAD that the main branch does not have (null without a main branch). */
  ahead: number | null;
}

async function readWorktree(worktree: string): Promise<Omit<SessionProgress, 'session'> | null> {
  if (!existsSync(worktree)) return null;
  try {
    const [entries, ref, target] = await Promise.all([
      status(worktree),
      currentBranch(worktree),
      defaultBranch(worktree),
    ]);
    const ahead = target ? await commitsAhead(worktree, target).catch(() => null) : null;
    return {
      worktree,
      branch: ref ? ref.replace(/^refs\/heads\//, '') : null,
      uncommitted: entries.length,
      target,
      ahead,
    };
  } catch {
    return null; // not a git worktree any more (removed by hand, or a repository without commits)
  }
}

/** The progress of each session given (by id) that has a worktree on this host; one git read per worktree. */
export async function sessionProgress(ctx: LanesContext, ids: string[]): Promise<SessionProgress[]> {
  const sessions = (await ctx.store.getSessions([...new Set(ids)])).filter(
    (s): s is SessionRecord & { worktree: string } => s.worktree !== null && s.owner.host === ctx.host,
  );
  // Sessions sharing a worktree share its state: read each worktree once.
  const worktrees = [...new Set(sessions.map((s) => s.worktree))];
  const read = new Map<string, Omit<SessionProgress, 'session'> | null>();
  const results = await inBatches(worktrees, GIT_PARALLEL, readWorktree);
  worktrees.forEach((wt, j) => read.set(wt, results[j] ?? null));
  return sessions.flatMap((s) => {
    const r = read.get(s.worktree);
    return r ? [{ session: s.id, ...r }] : [];
  });
}
