import { existsSync, lstatSync } from 'node:fs';
import { GIT_PARALLEL, inBatches } from '../../core/in-batches.js';
import { join } from 'node:path';
import { LanesError } from '../../core/errors.js';
import type { SessionState } from '../../core/liveness.js';
import { git } from '../../git/run.js';
import { commitFacts, commitsAheadOf } from '../../git/commit-facts.js';
import { statusWithHead } from '../../git/status.js';
import { defaultBranch, listWorktrees } from '../../git/worktree.js';
import type { SessionRecord } from '../../store/types.js';
import type { LanesContext } from '../context.js';
import { notSaved, orphanOwner } from './snapshots.js';
import type { Snapshot, SnapshotService } from './snapshots.js';
import type { SkippedPath } from '../../git/nested-repos.js';
import { flagTickets } from './sweep-flags.js';
import type { SweepFlag } from './sweep-flags.js';

export type SweepVerdict = 'in-progress' | 'abandoned' | 'clean' | 'missing';

export interface SweepItem {
  worktree: string;
  branch: string | null;
  session: {
    id: string;
    state: SessionState;
    label: string | null;
    agent: string | null;
    ticket: string | null;
  } | null;
  /** Other sessions registered in the same worktree (a shared index: a hazard of its own). */
  alsoHere: string[];
  ticket: string | null;
  dirtyFiles: number;
  /** Commits on its branch that the main branch does not have. */
  ahead: number;
  /** When its work last changed: newest mtime of a dirty file, else its HEAD commit time (ms). */
  lastWorkAt: number;
  verdict: SweepVerdict;
  snapshot: { ref: string; created: boolean } | null;
  /** What its snapshot could not hold (nested repositories, changes inside submodules). */
  notSaved: SkippedPath[];
  /** What to run to take this work over. */
  adopt: string | null;
  note: string;
}

export type { SweepFlag } from './sweep-flags.js';

export interface SweepReport {
  items: SweepItem[];
  flags: SweepFlag[];
  dryRun: boolean;
}

/** When the work last changed: the newest mtime of a dirty file, else HEAD's commit time (0: unknown). */
async function lastWork(
  worktree: string,
  dirty: string[],
  head: string | null,
  known: Map<string, { time: number }>,
): Promise<number> {
  let newest = 0;
  for (const p of dirty) {
    try {
      newest = Math.max(newest, lstatSync(join(worktree, p)).mtimeMs);
    } catch {
      /* deleted: its deletion time is unknown */
    }
  }
  if (newest > 0 || head === null) return newest;
  const time = known.get(head)?.time;
  if (time !== undefined) return time;
  try {
    return Number((await git(['log', '-1', '--format=%ct', head], { cwd: worktree })).trim()) * 1000;
  } catch {
    return 0;
  }
}

export interface SweepOptions {
  /** Report only; write no snapshot. */
  dryRun?: boolean;
  /** Called before each worktree is looked at. */
  onProgress?: (done: number, total: number, worktree: string) => void;
}
/**
 * The pre-reboot save that cannot publish a stale copy (incident 3b): every worktree of the
 * repository and every session registered for it is visited; dirty work is snapshotted to private
 * refs only; no branch is committed to, moved or pushed. Two holders of one ticket are flagged as a
 * collision and never resolved by picking one; older work for a ticket is flagged as a stale copy.
 */
export async function sweep(
  ctx: LanesContext,
  snapshots: SnapshotService,
  options: SweepOptions = {},
): Promise<SweepReport> {
  const repo = await ctx.repo();
  if (!repo)
    throw new LanesError('E_USAGE', `${ctx.cwd} is not inside a git repository`, {
      hint: 'run lanes sweep inside the repository',
    });
  const [worktrees, sessions, main] = await Promise.all([
    listWorktrees(repo.worktreeRoot),
    // This machine's sessions only: a team store also holds other hosts', whose worktrees are not here.
    ctx.store
      .listSessions({ includeEnded: true })
      .then((all) => all.filter((s) => s.repo === ctx.repoId(repo) && s.owner.host === ctx.host)),
    defaultBranch(repo.worktreeRoot),
  ]);
  const states = new Map([...(await ctx.statesOf(sessions))].map(([id, l]) => [id, l.state]));
  const visible = worktrees.filter((w) => !w.bare);
  // The sessions registered in each worktree, the one the work is attributed to first.
  const hereOf = new Map(
    visible.map((w) => [
      w.path,
      sessions
        .filter((s) => s.worktree === w.path)
        .sort((a, b) => rank(states, b) - rank(states, a) || b.createdAt - a.createdAt),
    ]),
  );
  const ownerOf = (w: { path: string }) => hereOf.get(w.path)?.[0]?.id ?? orphanOwner(w.path);
  // Read once for all worktrees, each in one git process (git/commit-facts.ts): what the heads are
  // (their trees, a clean worktree's last-work time), how far each branch is ahead of the main
  // one, and the newest snapshot of each of their owners.
  const heads = visible.map((w) => w.head).filter((h): h is string => h !== null);
  const branched = visible.filter((w) => main && w.head && w.branch && w.branch !== `refs/heads/${main}`);
  const [facts, ahead, newest] = await Promise.all([
    commitFacts(repo.worktreeRoot, heads).catch(() => new Map<string, { tree: string; time: number }>()),
    main
      ? commitsAheadOf(
          repo.worktreeRoot,
          `refs/heads/${main}`,
          branched.map((w) => w.head!),
        ).catch(() => new Map<string, number>())
      : new Map<string, number>(),
    options.dryRun ? new Map<string, Snapshot>() : newestByOwner(snapshots, visible.map(ownerOf)),
  ]);
  let done = 0;
  // GIT_PARALLEL worktrees at a time (each is a few git processes), listed in git's order.
  const items: SweepItem[] = await inBatches(visible, GIT_PARALLEL, async (wt) => {
    options.onProgress?.(done++, visible.length, wt.path);
    const here = hereOf.get(wt.path) ?? [];
    const primary: SessionRecord | undefined = here[0];
    const state = primary ? (states.get(primary.id) ?? 'dead') : null;
    if (!existsSync(wt.path))
      return item(
        wt.path,
        wt.branch,
        primary,
        state,
        here,
        0,
        0,
        0,
        'missing',
        null,
        null,
        'the worktree directory is gone (git worktree prune forgets it)',
      );
    // HEAD with the changes: a HEAD moved since the listing is the one the snapshot goes on.
    const { head, entries: changes } = await statusWithHead(wt.path);
    const aheadBy = branched.includes(wt) ? (ahead.get(wt.head!) ?? 0) : 0;
    const when = await lastWork(
      wt.path,
      changes.map((c) => c.path),
      head,
      facts,
    );
    let snap: SweepItem['snapshot'] = null;
    let skipped: SkippedPath[] = [];
    if (changes.length > 0 && !options.dryRun) {
      const owner = ownerOf(wt);
      const headTree = head ? facts.get(head)?.tree : undefined;
      const untracked = changes.filter((c) => c.code === '??').map((c) => c.path);
      const r = await snapshots.snapshot(wt.path, owner, 'lanes sweep', {
        countFiles: false,
        hints: { head, untracked, ...(headTree ? { headTree } : {}) },
        last: newest.get(owner) ?? null,
      });
      // Two worktrees of one owner (orphans named alike) number on from each other's snapshot.
      if (r.snapshot && r.created) newest.set(owner, r.snapshot);
      snap = r.snapshot ? { ref: r.snapshot.ref, created: r.created } : null;
      skipped = r.skipped;
    }
    const live = state === 'live';
    const hasWork = changes.length > 0 || aheadBy > 0;
    const verdict: SweepVerdict = !hasWork ? 'clean' : live ? 'in-progress' : 'abandoned';
    const adopt =
      verdict === 'abandoned'
        ? primary
          ? `lanes adopt ${primary.id}`
          : snap
            ? `lanes restore ${snap.ref}`
            : null
        : null;
    const note =
      verdict === 'in-progress'
        ? `in progress, owned by ${primary?.id} — snapshot only, not published`
        : verdict === 'abandoned'
          ? `abandoned (${primary ? `session ${primary.id} is ${state}` : 'no session'})${snap ? `; saved as ${snap.ref}` : ''}`
          : 'clean';
    const unsaved = notSaved(skipped);
    return {
      ...item(wt.path, wt.branch, primary, state, here, changes.length, aheadBy, when, verdict, snap, adopt, note),
      ...(unsaved ? { note: `${note}; ${unsaved}`, notSaved: skipped } : {}),
    };
  });
  for (const s of sessions) {
    if (s.endedAt !== null || !s.worktree || visible.some((w) => w.path === s.worktree)) continue;
    items.push(
      item(
        s.worktree,
        null,
        s,
        states.get(s.id) ?? 'dead',
        [s],
        0,
        0,
        0,
        'missing',
        null,
        null,
        `session ${s.id} is registered in ${s.worktree}, which is not a worktree any more`,
      ),
    );
  }
  return { items, flags: flagTickets(items), dryRun: options.dryRun === true };
}

/** Each owner's newest snapshot, from one listing of these owners' (not every snapshot ever made). */
async function newestByOwner(snapshots: SnapshotService, owners: string[]): Promise<Map<string, Snapshot>> {
  const newest = new Map<string, Snapshot>();
  // list() sorts by owner, then number: the last of each owner wins.
  for (const s of await snapshots.list([...new Set(owners)])) newest.set(s.owner, s);
  return newest;
}

function rank(states: Map<string, SessionState>, s: SessionRecord): number {
  const st = states.get(s.id);
  return st === 'live' ? 2 : st === 'dead' ? 1 : 0;
}

function item(
  worktree: string,
  branch: string | null,
  s: SessionRecord | undefined,
  state: SessionState | null,
  here: SessionRecord[],
  dirtyFiles: number,
  ahead: number,
  lastWorkAt: number,
  verdict: SweepVerdict,
  snapshot: SweepItem['snapshot'],
  adopt: string | null,
  note: string,
): SweepItem {
  return {
    worktree,
    branch,
    session: s && state ? { id: s.id, state, label: s.label, agent: s.agent, ticket: s.ticket } : null,
    alsoHere: here.slice(1).map((x) => x.id),
    ticket: s?.ticket ?? null,
    dirtyFiles,
    ahead,
    lastWorkAt,
    verdict,
    snapshot,
    notSaved: [],
    adopt,
    note,
  };
}
