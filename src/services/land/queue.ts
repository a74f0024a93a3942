import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import { LanesError } from '../../core/errors.js';
import { repoInfo } from '../../git/repo.js';
import type { RepoInfo } from '../../git/repo.js';
import { branchExists, currentBranch, defaultBranch, isAncestor, revParse } from '../../git/worktree.js';
import type { JournalEntry, JournalKind } from '../../store/journal-types.js';
import type { SessionRecord } from '../../store/types.js';
import type { LanesContext } from '../context.js';
import { describeSession } from '../describe.js';

// The landing queue (issue 49, item 3): an agent or a person marks a session ready, and `lanes
// land --queue` lands the ready ones one at a time in the order they became ready. The queue is
// the journal itself (no table of its own): `land.ready` puts a session in line, `land.unready`
// (taken back) and `land.stop` (the queue stopped it: a conflict, a failed check) take it out, and
// a `land` of its ticket after it means it landed. So the queue survives any kill, is the same on
// every host of a team store, and the morning's reader sees who marked what and when.

const QUEUE_KINDS: JournalKind[] = ['land.ready', 'land.unready', 'land.stop', 'land'];

/** A session in line to land. */
export interface QueueEntry {
  session: string;
  ticket: string | null;
  /** The branch it marked ready, short name (`lanes/shop-1`). */
  branch: string;
  /** The branch's tip when marked. */
  tip: string;
  /** The branch it is to land into (short name); null: the repository's main branch. */
  into: string | null;
  /** Store clock, ms. */
  readyAt: number;
  seq: number;
}

/** Why a session left the queue without landing, as the last `land.stop` of it says. */
export interface QueueStop {
  session: string;
  ticket: string | null;
  reason: string;
  why: string;
  at: number;
}

/** The repository a session's work is in: its worktree's, else the working directory's. */
export async function repoOfSession(ctx: LanesContext, s: SessionRecord): Promise<RepoInfo> {
  const wt = s.worktree && existsSync(s.worktree) ? s.worktree : null;
  const repo = (wt ? await repoInfo(wt) : null) ?? (await ctx.repo());
  if (!repo) throw new LanesError('E_USAGE', `${ctx.cwd} is not inside a git repository`);
  return repo;
}

/** The branch a session works on: its worktree's, or (worktree removed) the `lanes/<name>` it had. */
export async function branchOfSession(s: SessionRecord, repo: RepoInfo): Promise<string | null> {
  const wt = s.worktree && existsSync(s.worktree) && s.worktree !== repo.worktreeRoot ? s.worktree : null;
  if (wt) return (await currentBranch(wt))?.replace(/^refs\/heads\//, '') ?? null;
  const guess = s.worktree ? `lanes/${basename(s.worktree)}` : null;
  return guess && (await branchExists(repo.worktreeRoot, guess)) ? guess : null;
}

/** The queue of a repository as the journal has it: in line (in order) and stopped. */
export async function readQueue(
  ctx: LanesContext,
  repoId: string,
): Promise<{ ready: QueueEntry[]; stopped: QueueStop[] }> {
  const ready = new Map<string, QueueEntry>();
  const stopped = new Map<string, QueueStop>();
  let afterSeq = 0;
  for (;;) {
    const page: JournalEntry[] = await ctx.store.readJournal({
      repo: repoId,
      kinds: QUEUE_KINDS,
      afterSeq,
      limit: 1000,
    });
    for (const e of page) {
      const d = e.details;
      if (e.kind === 'land.ready') {
        ready.set(e.subject, {
          ...{ session: e.subject, ticket: e.ticket, branch: String(d['branch'] ?? ''), tip: String(d['tip'] ?? '') },
          into: typeof d['into'] === 'string' ? d['into'] : null,
          ...{ readyAt: e.at, seq: e.seq },
        });
        stopped.delete(e.subject);
      } else if (e.kind === 'land.unready') ready.delete(e.subject);
      else if (e.kind === 'land.stop') {
        ready.delete(e.subject);
        const reason = String(d['reason'] ?? 'stopped');
        stopped.set(e.subject, { session: e.subject, ticket: e.ticket, reason, why: String(d['why'] ?? ''), at: e.at });
      } else if (e.kind === 'land' && e.ticket) {
        for (const r of ready.values()) if (r.ticket === e.ticket) ready.delete(r.session);
        for (const st of stopped.values()) if (st.ticket === e.ticket) stopped.delete(st.session);
      }
    }
    if (page.length < 1000) break;
    afterSeq = page[page.length - 1]!.seq;
  }
  return { ready: [...ready.values()].sort((a, b) => a.seq - b.seq), stopped: [...stopped.values()] };
}

export interface ReadyResult {
  session: string;
  ticket: string | null;
  branch: string;
  tip: string;
  /** Its place in the queue (1: next), or null once taken out (--undo). */
  position: number | null;
  /** It was in line already (nothing written). */
  already: boolean;
}

/**
 * Puts a session in the landing queue (or takes it out: `undo`). Its branch must have work the
 * target does not have, under a ticket (lanes lands only under a ticket claim). A session marks
 * itself; a person any session; a session another live one only with `force`.
 */
export async function markReady(
  ctx: LanesContext,
  s: SessionRecord,
  options: { undo?: boolean; into?: string; live: boolean; force?: boolean },
): Promise<ReadyResult> {
  if (ctx.sessionId && ctx.sessionId !== s.id && options.live && !options.force)
    throw new LanesError(
      'E_NOT_YOURS',
      `${describeSession(s)} is live and not this session: it says when it is ready`,
      {
        hint: `its agent runs \`lanes ready\`, or a person does; --force marks it from here (journaled as by ${ctx.sessionId})`,
      },
    );
  if (!s.ticket)
    throw new LanesError('E_USAGE', `${describeSession(s)} has no ticket; lanes lands only under a ticket claim`, {
      hint: 'start sessions with --ticket T (or adopt one)',
    });
  const repo = await repoOfSession(ctx, s);
  const repoId = ctx.repoId(repo);
  const { ready } = await readQueue(ctx, repoId);
  const at = ready.findIndex((r) => r.session === s.id);
  const by = ctx.sessionId ?? `pid ${process.pid}`;
  const base = { session: s.id, ticket: s.ticket };
  if (options.undo) {
    const was = ready[at];
    if (!was) throw new LanesError('E_NOT_FOUND', `${describeSession(s)} is not in the landing queue`);
    await ctx.store.appendJournal([
      { kind: 'land.unready', subject: s.id, session: s.id, repo: repoId, ticket: s.ticket, details: { by } },
    ]);
    return { ...base, branch: was.branch, tip: was.tip, position: null, already: false };
  }
  if (at >= 0) {
    const r = ready[at]!;
    return { ...base, branch: r.branch, tip: r.tip, position: at + 1, already: true };
  }
  const branch = await branchOfSession(s, repo);
  if (!branch)
    throw new LanesError('E_NOT_FOUND', `${describeSession(s)} has no branch of its own to land`, {
      hint: 'sessions started with --worktree work on a branch lanes can land',
    });
  const tip = await revParse(repo.worktreeRoot, `refs/heads/${branch}`);
  const target = options.into ?? (await defaultBranch(repo.worktreeRoot));
  const targetTip = target ? await revParse(repo.worktreeRoot, `refs/heads/${target}`) : null;
  if (!tip) throw new LanesError('E_NOT_FOUND', `branch ${branch} has no commits`);
  if (targetTip && (await isAncestor(repo.worktreeRoot, tip, targetTip)))
    throw new LanesError('E_NOT_FOUND', `nothing to land: ${target} already contains ${branch}`, {
      hint: 'commit the work first (lanes commit -m … -- PATHS)',
    });
  await ctx.store.appendJournal([
    {
      ...{ kind: 'land.ready', subject: s.id, session: s.id, repo: repoId, ticket: s.ticket },
      details: { branch, tip, by, ...(options.into ? { into: options.into } : {}) },
    },
  ]);
  return { ...base, branch, tip, position: ready.length + 1, already: false };
}
