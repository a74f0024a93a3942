import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import { git } from '../../git/run.js';
import { commitsAhead, status } from '../../git/status.js';
import { addWorktreeOf, branchExists, currentBranch, defaultBranch, revParse } from '../../git/worktree.js';
import type { SessionRecord } from '../../store/types.js';
import type { LanesContext } from '../context.js';
import type { Snapshot, SnapshotService } from '../snapshots/snapshots.js';

// A ticket can go on (issue 45, item 4): what the last session of a ticket left when it died or
// ended (a kept worktree, uncommitted files, a branch ahead of the main branch, a snapshot), so
// `lanes new T` says so and goes on with it (--resume) or starts anew saying where it stays (--fresh).

export interface Predecessor {
  session: SessionRecord;
  /** Its worktree, when it is still there. */
  worktree: string | null;
  /** The path its worktree had (recreated there by --resume). */
  path: string | null;
  /** Files changed and not committed in its worktree. */
  uncommitted: number;
  /** Its branch, when it still exists. */
  branch: string | null;
  /** Commits on its branch the main branch lacks. */
  ahead: number;
  /** Its last snapshot. */
  snapshot: Snapshot | null;
}

/** Whether a predecessor left anything a new session of the ticket would otherwise start beside. */
export const leftWork = (p: Predecessor) =>
  p.session.died !== null || p.uncommitted > 0 || p.ahead > 0 || p.worktree !== null || p.snapshot !== null;

/**
 * The last session of `ticket` in this repository when it is not live (dead, or ended), with what
 * it left; null when there is none, or it is live (its ticket claim refuses the start anyway).
 */
export async function predecessorOf(
  ctx: LanesContext,
  snapshots: SnapshotService,
  ticket: string,
): Promise<Predecessor | null> {
  const repo = await ctx.repo();
  if (!repo) return null;
  const id = ctx.repoId(repo);
  const mine = (await ctx.store.listSessions({ includeEnded: true })).filter(
    (s) => s.ticket === ticket && s.repo === id && s.parent === null,
  );
  const last = mine.sort((a, b) => b.createdAt - a.createdAt)[0];
  if (!last || (await ctx.stateOf(last)).state === 'live') return null;
  return leftBy(ctx, snapshots, last);
}

/** What session `last` left: its worktree (if still there), uncommitted files, branch and how far ahead, last snapshot. */
export async function leftBy(ctx: LanesContext, snapshots: SnapshotService, last: SessionRecord): Promise<Predecessor> {
  const repo = (await ctx.repo()) ?? null;
  if (!repo)
    return {
      session: last,
      worktree: null,
      path: last.worktree,
      uncommitted: 0,
      branch: null,
      ahead: 0,
      snapshot: null,
    };
  const worktree =
    last.worktree && last.worktree !== repo.worktreeRoot && existsSync(last.worktree) ? last.worktree : null;
  const guess =
    last.worktree && last.worktree !== repo.worktreeRoot ? `refs/heads/lanes/${basename(last.worktree)}` : null;
  const branch = worktree
    ? await currentBranch(worktree)
    : guess && (await branchExists(repo.worktreeRoot, guess.slice('refs/heads/'.length)))
      ? guess
      : null;
  const main = await defaultBranch(repo.worktreeRoot);
  const ahead = branch && main ? await commitsAhead(repo.worktreeRoot, main, branch).catch(() => 0) : 0;
  const uncommitted = worktree ? (await status(worktree).catch(() => [])).length : 0;
  const snapshot = (await snapshots.list(last.id).catch(() => [])).at(-1) ?? null;
  return { session: last, worktree, path: last.worktree, uncommitted, branch, ahead, snapshot };
}

/** What a predecessor left, in words (said by lanes new, and the question it asks). */
export function describeLeft(p: Predecessor): string {
  const s = p.session;
  const end = s.died ? `died (${s.died})` : s.endedAt !== null ? `ended (${s.endReason ?? 'ended'})` : 'is dead';
  const parts = [
    p.worktree
      ? `its worktree ${p.worktree}${p.uncommitted ? ` with ${p.uncommitted} uncommitted file(s)` : ''}`
      : null,
    p.branch
      ? `branch ${p.branch.replace(/^refs\/heads\//, '')}${p.ahead ? ` ${p.ahead} commit(s) ahead of the main branch` : ''}`
      : null,
    p.snapshot ? `snapshot ${p.snapshot.ref}` : null,
  ].filter(Boolean);
  return `the last session of ${s.ticket} (${s.label ?? s.id}) ${end}; it left ${parts.length ? parts.join(', ') : 'nothing'}`;
}

/**
 * The predecessor's worktree for a session going on with its work: as it is, or made again on its
 * branch where gc removed it, its last snapshot's uncommitted work put back when the snapshot sits
 * on that branch's tip. Returns the path and what was done.
 */
export async function resumeWorktree(ctx: LanesContext, p: Predecessor): Promise<{ path: string; notes: string[] }> {
  if (p.worktree) return { path: p.worktree, notes: [] };
  const repo = await ctx.repo();
  if (!repo || !p.path || !p.branch)
    throw new Error(`${p.session.id} left no worktree and no branch to go on with; start with --fresh`);
  await addWorktreeOf(repo.worktreeRoot, p.path, p.branch.replace(/^refs\/heads\//, ''));
  const notes = [`made its worktree ${p.path} again on ${p.branch.replace(/^refs\/heads\//, '')}`];
  const tip = await revParse(p.path, 'HEAD');
  if (p.snapshot && p.snapshot.parent === tip) {
    // As lanes restore: the snapshot's files, the index left on HEAD (the work uncommitted again).
    await git(['read-tree', '-m', '-u', 'HEAD', p.snapshot.tree], { cwd: p.path });
    await git(['reset', '-q'], { cwd: p.path });
    notes.push(`its uncommitted work put back from ${p.snapshot.ref}`);
  } else if (p.snapshot) notes.push(`its last snapshot ${p.snapshot.ref} is on another commit: \`lanes restore\` it`);
  return { path: p.path, notes };
}
