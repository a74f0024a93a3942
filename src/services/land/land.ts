import { existsSync } from 'node:fs';
import { LanesError } from '../../core/errors.js';
import { formatResource } from '../../core/resource.js';
import { git } from '../../git/run.js';
import { previewMerge } from '../../git/merge.js';
import { status } from '../../git/status.js';
import { currentBranch, defaultBranch, isAncestor, listWorktrees, revParse } from '../../git/worktree.js';
import type { ResourceRef } from '../../core/resource.js';
import type { ClaimRecord, Grant, SessionRecord } from '../../store/types.js';
import type { ClaimService } from '../claims/claims.js';
import { unknownSession } from '../context.js';
import type { LanesContext } from '../context.js';
import { describeSession } from '../describe.js';
import { acquireGate } from '../state/gate.js';
import { finishLanding, landingEntry } from './finish-landing.js';
import { clearIntent, describeInterrupted, pendingIntents, writeIntent } from './landing-intent.js';
import type { LandingIntent } from './landing-intent.js';

export type LandMode = 'ff' | 'merge' | 'squash';

export interface LandResult {
  branch: string;
  target: string;
  from: string;
  to: string;
  mode: LandMode;
  ticket: string;
  token: number;
  updatedWorktree: string | null;
}

const ZERO = '0000000000000000000000000000000000000000';

/** What land checked before taking the landing gate: the session, its held ticket and the target. */
interface LandTarget {
  me: SessionRecord;
  ref: ResourceRef;
  held: ClaimRecord;
  ticket: string;
  branchRef: string;
  targetName: string;
  targetRef: string;
  /** The landing gate held, and where the intent of this landing is written. */
  at: { gate: string; commonDir: string; repo: string };
  /** Where git runs: the session's worktree, else the repository's (a branch whose worktree is gone). */
  cwd: string;
}

/**
 * Publishes the session's branch onto the target, fenced: the session must hold its ticket claim,
 * and the token it held when landing started must still be the current one right before the
 * target moves (a holder whose claim was taken over gets E_FENCED, exit 4). Conflicts with the
 * target are refused first (exit 3). The target moves by compare-and-swap; a worktree that has
 * the target checked out must be clean and is brought to the new commit.
 */
export async function land(
  ctx: LanesContext,
  claims: ClaimService,
  options: {
    into?: string;
    mode?: LandMode;
    /** The branch to land (default: what the session's worktree has checked out). */
    branch?: string;
    /** The session that lands (default: the acting one). */
    session?: string;
    /** Land only if the branch is at this commit (the landing queue's checked result), else E_FLAGGED. */
    expectTip?: string;
  } = {},
): Promise<LandResult> {
  const me = await ctx.requireSession(options.session);
  // Its worktree, or (landing a branch whose worktree gc removed: lanes land --ticket) the repository.
  const wt = me.worktree && existsSync(me.worktree) ? me.worktree : null;
  const cwd = wt ?? (options.branch ? ((await ctx.repo())?.worktreeRoot ?? null) : null);
  if (!cwd)
    throw new LanesError('E_USAGE', `session ${me.id} has no worktree to land from`, {
      hint: me.ticket
        ? `land its branch from the repository: lanes land --ticket ${me.ticket}`
        : 'start sessions with --worktree',
    });
  if (!me.ticket)
    throw new LanesError('E_USAGE', `session ${me.id} has no ticket; lanes lands only under a ticket claim`, {
      hint: 'start sessions with --ticket T (or adopt one)',
    });
  const ticket = `ticket:${me.ticket}`;
  const [ref] = await claims.parse([ticket]);
  const held = ref
    ? (await ctx.store.listClaims({ sessionId: me.id })).find(
        (c) => c.kind === 'ticket' && c.name === me.ticket && c.scope === ref.scope,
      )
    : undefined;
  if (!held || !ref) {
    throw new LanesError('E_FENCED', `session ${me.id} does not hold ${ticket}; only its holder may land it`, {
      hint: `claim it first: lanes claim ${ticket}`,
      details: { resource: ticket },
    });
  }
  const branchRef = options.branch ? `refs/heads/${options.branch}` : await currentBranch(cwd);
  if (!branchRef) throw new LanesError('E_REPO_STATE', `HEAD is detached in ${cwd}; nothing to land`);
  const targetName = options.into ?? (await defaultBranch(cwd));
  if (!targetName) throw new LanesError('E_USAGE', 'no target branch found', { hint: 'pass --into BRANCH' });
  const targetRef = `refs/heads/${targetName}`;
  if (targetRef === branchRef)
    throw new LanesError(
      'E_USAGE',
      `the session is on ${targetName} itself; land publishes a session branch onto another branch`,
    );
  // One landing into a target at a time: a second one reading the target while the first is
  // between moving it and bringing its checked-out worktree along would take that worktree for dirty.
  const gateName = `land:${ref.scope}:${targetRef}`;
  const gate = await acquireGate(ctx, gateName, null, `the landing into ${targetName}`);
  try {
    const repo = await ctx.repo();
    if (!repo) throw new LanesError('E_USAGE', `${ctx.cwd} is not inside a git repository`);
    // A landing into this target left half-done by a kill is finished first (we hold its gate).
    for (const i of pendingIntents(repo.commonDir).filter((p) => p.targetRef === targetRef)) {
      const done = await finishLanding(ctx, repo.worktreeRoot, repo.commonDir, i, 'lanes land', true);
      if (done?.outcome === 'stuck')
        throw new LanesError('E_REPO_STATE', `${describeInterrupted(i)}: ${done.detail}`, {
          hint: 'nothing new was published; finish that one first',
        });
    }
    const at = { gate: gateName, commonDir: repo.commonDir, repo: ctx.repoId(repo) };
    return await landHeld(ctx, claims, { me, ref, held, ticket, branchRef, targetName, targetRef, at, cwd }, options);
  } finally {
    await gate.release({ kind: 'keep' });
  }
}

async function landHeld(
  ctx: LanesContext,
  claims: ClaimService,
  o: LandTarget,
  options: { mode?: LandMode; expectTip?: string },
): Promise<LandResult> {
  const { me, ref, held, ticket, branchRef, targetName, targetRef, cwd } = o;
  const tip = await revParse(cwd, branchRef);
  if (options.expectTip && tip !== options.expectTip)
    throw new LanesError(
      'E_FLAGGED',
      `${branchRef.replace('refs/heads/', '')} moved while landing: it is at ${tip?.slice(0, 10) ?? '(gone)'}, what was checked is ${options.expectTip.slice(0, 10)}; nothing was published`,
      { hint: 'mark it ready again (lanes ready): the queue checks it as it is now' },
    );
  const old = await revParse(cwd, targetRef);
  if (!tip || !old) throw new LanesError('E_USAGE', `branch ${old ? branchRef : targetName} has no commits`);
  if (await isAncestor(cwd, tip, old))
    throw new LanesError(
      'E_NOT_FOUND',
      `nothing to land: ${targetName} already contains ${branchRef.replace('refs/heads/', '')}`,
    );
  const preview = await previewMerge(cwd, old, tip);
  if (preview.conflicts.length > 0) {
    throw new LanesError(
      'E_FLAGGED',
      `landing ${branchRef.replace('refs/heads/', '')} on ${targetName} conflicts in ${preview.conflicts.join(', ')}`,
      {
        hint: `merge or rebase ${targetName} into your branch first and resolve them; nothing was published`,
        details: { conflicts: preview.conflicts },
      },
    );
  }
  const canFf = await isAncestor(cwd, old, tip);
  const mode: LandMode = options.mode ?? (canFf ? 'ff' : 'merge');
  if (mode === 'ff' && !canFf)
    throw new LanesError('E_FLAGGED', `${targetName} has moved on; a fast-forward is not possible`, {
      hint: 'use --merge or --squash, or rebase your branch',
    });
  const subject = `${me.ticket}: ${branchRef.replace('refs/heads/', '')}`;
  const to =
    mode === 'ff'
      ? tip
      : (
          await git(['commit-tree', preview.tree, '-p', old, ...(mode === 'merge' ? ['-p', tip] : []), '-F', '-'], {
            cwd: cwd,
            input: mode === 'merge' ? `Merge ${subject} into ${targetName}\n` : `${subject} (squashed)\n`,
          })
        ).trim();
  const checkedOut = (await listWorktrees(cwd)).find((w) => w.branch === targetRef);
  const inTheWay = checkedOut ? await changesInTheWay(cwd, checkedOut.path, old, to) : [];
  if (checkedOut && inTheWay.length > 0) {
    if ((await revParse(cwd, targetRef)) !== old) throw movedWhileLanding(targetName);
    throw new LanesError(
      'E_REPO_STATE',
      `${targetName} is checked out in ${checkedOut.path}, which has uncommitted changes (${inTheWay.slice(0, 5).join(', ')}${inTheWay.length > 5 ? ', …' : ''}); not moving it under them`,
      { hint: `commit or stash them there (or lanes snapshot), then land again` },
    );
  }
  // The fence: right before publishing, the token we started with must still be the current one.
  await claims.assertFenced(ref, held.token);
  const intent: LandingIntent = {
    v: 1,
    target: targetName,
    targetRef,
    branch: branchRef,
    from: old,
    to,
    mode,
    ticket,
    token: held.token,
    worktree: checkedOut?.path ?? null,
    session: me.id,
    repo: o.at.repo,
    gate: o.at.gate,
    at: Date.now(),
  };
  // Intent before effect, outcome after (see landing-intent.ts): a kill anywhere between leaves
  // the file that lets the next call finish it or record that nothing was published.
  writeIntent(o.at.commonDir, intent);
  try {
    await ctx.store.appendJournal([landingEntry(intent, 'land.intent')]);
  } catch (e) {
    clearIntent(o.at.commonDir, targetRef);
    throw e;
  }
  try {
    // LANES_LANDING lets the guard's reference-transaction hook (lanes guard --protect) tell us apart.
    await git(['update-ref', '-m', `lanes land ${subject}`, targetRef, to, old ?? ZERO], {
      cwd: cwd,
      env: { LANES_LANDING: '1' },
    });
  } catch (e) {
    clearIntent(o.at.commonDir, targetRef);
    throw movedWhileLanding(targetName, e);
  }
  if (checkedOut) await git(['read-tree', '-m', '-u', old, to], { cwd: checkedOut.path });
  // Should the outcome fail to be recorded (a full disk), the intent stays and the next call records it.
  await ctx.store.appendJournal([landingEntry(intent, 'land')]);
  clearIntent(o.at.commonDir, targetRef);
  return {
    branch: branchRef,
    target: targetName,
    from: old,
    to,
    mode,
    ticket,
    token: held.token,
    updatedWorktree: checkedOut?.path ?? null,
  };
}

function movedWhileLanding(target: string, cause?: unknown): LanesError {
  return new LanesError('E_FLAGGED', `${target} moved while landing; nothing was published`, {
    hint: `see what moved it (git log -3 ${target}), then run lanes land again: it lands on top of the new ${target}`,
    ...(cause === undefined ? {} : { cause }),
  });
}

/**
 * Takes over the work of a dead or ended session: its claims (with new tokens) and its ticket,
 * and moves this session into its worktree. A live session's work is never adopted.
 */
export async function adopt(
  ctx: LanesContext,
  claims: ClaimService,
  victimId: string,
  /** The adopting session (default: the acting one). */
  adopter?: string,
): Promise<{ worktree: string | null; grants: Grant[] }> {
  const me = await ctx.requireSession(adopter);
  const victim = await ctx.store.getSession(victimId);
  if (!victim) throw unknownSession(victimId, ctx.store.info.location);
  const { state } = await ctx.stateOf(victim);
  if (state === 'live') {
    throw new LanesError('E_CLAIM_HELD', `${describeSession(victim)} is live; its work is not abandoned`, {
      hint: 'coordinate with it; lanes adopts only dead or ended sessions',
    });
  }
  const resources = (await ctx.store.listClaims({ sessionId: victim.id })).map((c) => formatResource(c));
  if (victim.ticket && !resources.includes(`ticket:${victim.ticket}`)) resources.push(`ticket:${victim.ticket}`);
  const grants = resources.length > 0 ? await claims.claim(resources, { session: me.id }) : [];
  await ctx.store.updateSession(me.id, {
    ...(victim.worktree ? { worktree: victim.worktree } : {}),
    ...(victim.ticket ? { ticket: victim.ticket } : {}),
  });
  return { worktree: victim.worktree, grants };
}

/**
 * What stops the worktree that has the target checked out from being brought along: any change of
 * a tracked file, and an untracked file only where the land writes (the same path, or a directory
 * and a file of one name): git's read-tree -u would refuse it after the target moved. Untracked
 * files elsewhere (an agent's config lanes setup just wrote, a scratch file) stay as they are.
 */
async function changesInTheWay(cwd: string, worktree: string, from: string, to: string): Promise<string[]> {
  const entries = await status(worktree);
  const tracked = entries.filter((e) => e.code !== '??').map((e) => e.path);
  if (tracked.length > 0) return tracked;
  const untracked = entries.map((e) => e.path.replace(/\/$/, ''));
  if (untracked.length === 0) return [];
  const out = await git(['diff', '--name-only', '-z', '--no-renames', from, to], { cwd });
  const written = out.split('\0').filter(Boolean);
  const under = (a: string, b: string) => a === b || a.startsWith(`${b}/`);
  return untracked.filter((u) => written.some((w) => under(w, u) || under(u, w)));
}
