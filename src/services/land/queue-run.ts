import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { matchesStrip } from '../../core/config.js';
import { LanesError } from '../../core/errors.js';
import { abortInProgress, bringOnto, restoreBranch } from '../../git/bring-up.js';
import { mainWorktreeOf } from '../../git/main-worktree.js';
import { previewMerge } from '../../git/merge.js';
import type { RepoInfo } from '../../git/repo.js';
import { status } from '../../git/status.js';
import { addWorktreeOf, currentBranch, defaultBranch, isAncestor, revParse } from '../../git/worktree.js';
import type { LanesContext } from '../context.js';
import { loadConfig } from '../config.js';
import { runSessionCommand } from '../sessions/setup.js';
import { acquireGate } from '../state/gate.js';
import { allowCommand, blockedBy, describeRuns } from '../trust/gate.js';
import type { Lanes } from '../lanes-api.js';
import type { LandResult } from './land.js';
import { readQueue } from './queue.js';
import type { QueueEntry } from './queue.js';
import { clearQueueIntent, dropTemporary, recoverQueue, writeQueueIntent } from './queue-intent.js';

// `lanes land --queue` (issue 49, item 3): the ready sessions land one at a time, in the order
// they became ready. Each is checked with `git merge-tree` against the target's tip first (a
// conflict touches no worktree), brought onto that tip in its own worktree (rebase, or a merge
// with [land] strategy = "merge"), then the repository's [land] check runs on the result there
// (only as allowed: lanes allow); only a clean, checked result is published, by lanes land
// (fenced by the ticket claim, its intent journaled). A session that conflicts or fails its check
// is stopped (land.stop, its branch as it was) and the queue goes on. What a kill leaves (a
// rebase half done, a branch brought up and not landed) is undone by the next run first.

export type QueueOutcome =
  | { session: string; ticket: string | null; outcome: 'landed'; landed: LandResult }
  /** The target has its work already (landed another way, or by a run killed after publishing). */
  | { session: string; ticket: string | null; outcome: 'already'; why: string }
  | { session: string; ticket: string | null; outcome: 'stopped'; reason: string; why: string; conflicts?: string[] };

export interface QueueRun {
  target: string;
  /** Left half done by an earlier run and undone first (sessions). */
  recovered: string[];
  results: QueueOutcome[];
}

/** What the queue needs of the library: landing a session's branch, as itself or as a finished one. */
type Landing = Pick<Lanes, 'land' | 'landFinished'>;

export async function runQueue(ctx: LanesContext, lanes: Landing, options: { into?: string } = {}): Promise<QueueRun> {
  const repo = await ctx.repo();
  if (!repo) throw new LanesError('E_USAGE', `${ctx.cwd} is not inside a git repository`);
  const target = options.into ?? (await defaultBranch(repo.worktreeRoot));
  if (!target) throw new LanesError('E_USAGE', 'no target branch found', { hint: 'pass --into BRANCH' });
  const repoId = ctx.repoId(repo);
  // One run of a repository's queue at a time: a second one is refused at once, not queued behind
  // a check that may take many minutes.
  const gate = await acquireGate(ctx, `land-queue:${repoId}`, null, `the landing queue of ${target}`, {
    timeoutMs: 1500,
    noticeAfterMs: Infinity,
  }).catch((e: unknown) => {
    if (e instanceof LanesError && e.code === 'E_TIMEOUT')
      throw new LanesError('E_CLAIM_HELD', `another lanes land --queue is running in this repository`, {
        hint: 'wait for it to finish (lanes queue shows the line)',
      });
    throw e;
  });
  try {
    // What a killed run left: a landing in flight finished (or recorded as not published), then a
    // branch brought up but not landed put back.
    const { finishAll } = await import('./finish-landing.js');
    const stuck = (await finishAll(ctx, repo.worktreeRoot, repo.commonDir, 'lanes land --queue')).find(
      (f) => f.outcome === 'stuck',
    );
    if (stuck) throw new LanesError('E_REPO_STATE', stuck.detail, { hint: 'nothing new was published' });
    const recovered = await recoverQueue(repo.commonDir, repo.worktreeRoot);
    const { ready } = await readQueue(ctx, repoId);
    const results: QueueOutcome[] = [];
    // Each lands into the branch it was marked for: those for another target wait for its run.
    const repoMain = await defaultBranch(repo.worktreeRoot);
    for (const entry of ready.filter((e) => (e.into ?? repoMain) === target)) {
      const r = await landOne(ctx, lanes, repo, repoId, target, entry);
      if (r.outcome === 'already')
        await ctx.store.appendJournal([
          {
            ...{ kind: 'land.unready', subject: entry.session, session: entry.session, repo: repoId },
            ...{ ticket: entry.ticket, details: { why: r.why, by: 'lanes land --queue' } },
          },
        ]);
      if (r.outcome === 'stopped')
        await ctx.store.appendJournal([
          {
            ...{
              kind: 'land.stop',
              subject: entry.session,
              session: entry.session,
              repo: repoId,
              ticket: entry.ticket,
            },
            details: {
              reason: r.reason,
              why: r.why,
              branch: entry.branch,
              target,
              ...(r.conflicts ? { conflicts: r.conflicts } : {}),
            },
          },
        ]);
      if (r.outcome === 'stopped') await tellStopped(ctx, entry, target, r.reason, r.why);
      results.push(r);
    }
    return { target, recovered, results };
  } finally {
    await gate.release({ kind: 'keep' });
  }
}

async function landOne(
  ctx: LanesContext,
  lanes: Landing,
  repo: RepoInfo,
  repoId: string,
  target: string,
  entry: QueueEntry,
): Promise<QueueOutcome> {
  const base = { session: entry.session, ticket: entry.ticket };
  const stop = (reason: string, why: string, conflicts?: string[]): QueueOutcome => ({
    ...base,
    outcome: 'stopped',
    reason,
    why,
    ...(conflicts ? { conflicts } : {}),
  });
  const s = await ctx.store.getSession(entry.session);
  if (!s) return stop('gone', 'the session is no longer in the store');
  const root = repo.worktreeRoot;
  // [land] of the repository as the person has it (its main worktree's lanes.toml, allowed), never
  // the branch's own copy: a branch that drops or changes its check is still checked.
  const config = await loadConfig(ctx, mainWorktreeOf(repo.commonDir) ?? root);
  // The target may move under a running queue (a person's lanes land): brought up again, twice at most.
  for (let attempt = 0; ; attempt++) {
    const tip = await revParse(root, `refs/heads/${entry.branch}`);
    if (!tip) return stop('no branch', `branch ${entry.branch} is gone`);
    // What was marked ready is what is checked and landed.
    if (entry.tip && tip !== entry.tip)
      return stop(
        'moved since ready',
        `${entry.branch} is at ${tip.slice(0, 10)}, marked ready at ${entry.tip.slice(0, 10)}: lanes ready marks it again as it is now`,
      );
    const old = await revParse(root, `refs/heads/${target}`);
    if (!old) throw new LanesError('E_USAGE', `branch ${target} has no commits`);
    if (await isAncestor(root, tip, old))
      return { ...base, outcome: 'already', why: `${target} already contains ${entry.branch}` };
    const preview = await previewMerge(root, old, tip);
    if (preview.conflicts.length > 0)
      return stop('conflict', `conflicts with ${target} in ${preview.conflicts.join(', ')}`, preview.conflicts);
    const own = s.worktree && existsSync(s.worktree) ? s.worktree : null;
    const ownBranch = own ? (await currentBranch(own))?.replace(/^refs\/heads\//, '') : null;
    if (own && ownBranch !== entry.branch)
      return stop('moved', `its worktree ${own} is on ${ownBranch ?? 'a detached HEAD'}, not ${entry.branch}`);
    const dirty = own ? (await status(own)).filter((e) => e.code !== '??').map((e) => e.path) : [];
    if (dirty.length > 0)
      return stop(
        'uncommitted',
        `uncommitted changes in ${own}: ${dirty.slice(0, 5).join(', ')}${dirty.length > 5 ? ', …' : ''}`,
      );
    // Its worktree, or (removed by gc) one made for the run and removed after it.
    const wt = own ?? join(mkdtempSync(join(tmpdir(), 'lanes-queue-')), 'worktree');
    const temporary = own === null;
    const intent = { v: 1 as const, session: s.id, branch: entry.branch, tip, target, onto: old, brought: null };
    writeQueueIntent(repo.commonDir, { ...intent, worktree: wt, temporary, at: Date.now() });
    try {
      if (temporary) await addWorktreeOf(root, wt, entry.branch);
      let brought = tip;
      if (!(await isAncestor(root, old, tip))) {
        const up = await bringOnto(wt, old, config.land.strategy);
        if (!up.ok) return stop('conflict', up.why, up.conflicts);
        brought = up.tip;
        writeQueueIntent(repo.commonDir, { ...intent, brought, worktree: wt, temporary, at: Date.now() });
      }
      const checked = await check(ctx, wt, config);
      // A commit made in the worktree while the check ran was not checked: nothing lands, nothing is undone.
      const head = await revParse(wt, 'HEAD');
      if (head !== brought)
        return stop(
          'moved during the check',
          `${entry.branch} moved while the check ran (now ${head?.slice(0, 10) ?? '?'}): nothing landed, its commits kept on top of ${target}; lanes ready marks it again`,
        );
      if (checked) return stop(checked.reason, `${checked.why}${await putBack(wt, brought, tip)}`);
      try {
        const landed = await publish(ctx, lanes, s.id, entry.branch, target, brought);
        return { ...base, outcome: 'landed', landed };
      } catch (e) {
        const back = await putBack(wt, brought, tip);
        const moved =
          e instanceof LanesError && e.code === 'E_FLAGGED' && /moved on|main moved|has moved/.test(e.message);
        if (moved && attempt < 2 && !back) continue;
        if (e instanceof LanesError) return stop('refused', `${e.message}${e.hint ? ` (${e.hint})` : ''}${back}`);
        throw e;
      }
    } catch (e) {
      // Unforeseen (git failing, a full disk): this session is stopped, the queue goes on.
      if (!(e instanceof Error)) throw e;
      const back = await putBack(wt, null, tip);
      return stop('error', `${e.message.split('\n')[0]}${back}`);
    } finally {
      if (temporary) await dropTemporary(root, wt);
      clearQueueIntent(repo.commonDir, s.id);
    }
  }
}

/**
 * The branch back at its ready tip after a stop, only while it is still at what the bring-up made
 * (`brought`; null: whatever it made) — a commit added since is never dropped. '' when put back or
 * nothing to do, else why it stays as it is (for the stop's words).
 */
async function putBack(wt: string, brought: string | null, tip: string): Promise<string> {
  const head = await revParse(wt, 'HEAD').catch(() => null);
  if (head === tip) return '';
  if (brought !== null && head !== brought) return `; ${wt} has commits on top of the check's result: left as it is`;
  try {
    await abortInProgress(wt);
    await restoreBranch(wt, tip);
    return '';
  } catch (e) {
    return `; its branch could not be put back (${(e as Error).message.split('\n')[0]}): left brought onto the target in ${wt}`;
  }
}

/** The repository's [land] check on the result, as allowed; what stops the session, or null when it passed. */
async function check(
  ctx: LanesContext,
  wt: string,
  config: Awaited<ReturnType<typeof loadConfig>>,
): Promise<{ reason: string; why: string } | null> {
  const command = config.land.check;
  if (!command) return null;
  // The main worktree's lanes.toml as allowed: one changed since `lanes allow` is not run.
  const blocked = blockedBy(ctx.env, config.repoFile, ['check']);
  if (blocked)
    return {
      reason: 'check not allowed',
      why: `${describeRuns(blocked.runs)} of ${blocked.file} is ${blocked.state === 'denied' ? 'denied' : 'not allowed'}: read it, then \`${allowCommand(blocked)}\``,
    };
  const kept = Object.entries(ctx.env).filter(
    ([k, v]) => v !== undefined && !k.startsWith('LANES_') && !matchesStrip(k, config.env.strip),
  ) as [string, string][];
  const r = await runSessionCommand(
    command,
    wt,
    { ...Object.fromEntries(kept), LANES_QUEUE_CHECK: '1' },
    config.land.timeoutMs,
    { setting: '[land] timeout' },
  );
  if (r.ok) return null;
  const tail = r.output.trim().split('\n').slice(-5).join('\n');
  return { reason: 'check failed', why: `[land] check \`${command}\` ${r.why ?? 'failed'}${tail ? `:\n${tail}` : ''}` };
}

/** Lands the brought-up branch fast-forward: as the session while it holds its ticket, else as a finished one. */
async function publish(
  ctx: LanesContext,
  lanes: Landing,
  id: string,
  branch: string,
  into: string,
  expectTip: string,
): Promise<LandResult> {
  const s = await ctx.store.getSession(id);
  const holds =
    s && s.endedAt === null && (await ctx.store.listClaims({ sessionId: id })).some((c) => c.kind === 'ticket');
  if (holds) return lanes.land({ session: id, branch, into, mode: 'ff', expectTip });
  return lanes.landFinished(id, { into, mode: 'ff', expectTip });
}

/** Its agent is told why (lanes tell: at its next tool call or turn), when it is still there to hear it. */
async function tellStopped(ctx: LanesContext, e: QueueEntry, target: string, reason: string, why: string) {
  const s = await ctx.store.getSession(e.session);
  if (!s || s.endedAt !== null || s.owner.host !== ctx.host || (await ctx.stateOf(s)).state !== 'live') return;
  // What the agent can fix itself; the rest is the person's (told in lanes queue and the report).
  const yours = ['conflict', 'check failed', 'uncommitted', 'moved since ready', 'moved during the check'];
  const next = yours.includes(reason)
    ? 'Fix it on your branch, commit, then run `lanes ready` to join the queue again.'
    : 'A person settles this one (lanes queue says why); nothing for you to change.';
  const { tell } = await import('../tell/tell.js');
  await tell(
    ctx,
    s,
    `lanes land --queue did not land ${e.branch} into ${target} (${reason}): ${why.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, ' ')}\n${next}`,
  ).catch(() => undefined);
}
