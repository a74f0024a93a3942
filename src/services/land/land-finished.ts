import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import { LanesError } from '../../core/errors.js';
import { branchExists, currentBranch } from '../../git/worktree.js';
import type { LanesContext } from '../context.js';
import { describeSession } from '../describe.js';
import type { Lanes } from '../lanes-api.js';
import type { LandMode, LandResult } from './land.js';

// `lanes land --ticket T` (or --from S): a person lands the branch of a session that finished,
// died or ended, from the main worktree, even after `lanes gc --worktrees` removed its worktree
// (issue 45, item 4). The person acts through a session of this command's own, which claims the
// ticket (fenced as any landing: the finished session's claim is free or taken over), lands the
// branch and ends; every step journaled. A live session lands its own work.

export async function landFinished(
  ctx: LanesContext,
  lanes: Pick<Lanes, 'sessions' | 'land'>,
  name: string,
  options: { into?: string; mode?: LandMode; expectTip?: string } = {},
): Promise<LandResult & { of: string }> {
  const done = await lanes.sessions.get(name);
  if (done.state === 'live')
    throw new LanesError('E_NOT_YOURS', `${describeSession(done)} is live: it lands its own work`, {
      hint: `ask it to (lanes land in its shell), or stop it first: lanes stop ${done.id}`,
    });
  if (!done.ticket)
    throw new LanesError('E_USAGE', `${describeSession(done)} has no ticket; lanes lands only under a ticket claim`);
  const repo = await ctx.repo();
  if (!repo) throw new LanesError('E_USAGE', 'run lanes land --ticket inside the repository');
  const wt = done.worktree && existsSync(done.worktree) && done.worktree !== repo.worktreeRoot ? done.worktree : null;
  const guess = done.worktree ? `lanes/${basename(done.worktree)}` : null;
  const branch = wt
    ? (await currentBranch(wt))?.replace(/^refs\/heads\//, '')
    : guess && (await branchExists(repo.worktreeRoot, guess))
      ? guess
      : null;
  if (!branch)
    throw new LanesError('E_NOT_FOUND', `${describeSession(done)} left no branch to land`, {
      hint: 'its work may be in a snapshot: lanes snapshots --session ' + done.id,
    });
  const me = await lanes.sessions.start({
    pid: process.pid,
    label: `land ${done.ticket}`,
    ticket: done.ticket,
    command: `lanes land --ticket ${done.ticket}`,
  });
  try {
    const r = await lanes.land({ ...options, branch, session: me.id });
    return { ...r, of: done.id };
  } finally {
    await lanes.sessions
      .end(me.id, { reason: `landed ${done.id}'s branch ${branch}`, asOwner: true })
      .catch(() => undefined);
  }
}
