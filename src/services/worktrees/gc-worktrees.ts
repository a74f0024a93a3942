import { existsSync } from 'node:fs';
import { relative } from 'node:path';
import { status } from '../../git/status.js';
import { lockWorktree, unlockWorktree } from '../../git/worktree-lock.js';
import { branchMerged, defaultBranch, isAncestor } from '../../git/worktree.js';
import type { WorktreeEntry } from '../../git/worktree.js';
import { loadConfig } from '../config.js';
import type { LanesContext } from '../context.js';
import type { GcReport } from '../doctor/gc.js';
import { orphanOwner } from '../snapshots/snapshots.js';
import type { SnapshotService } from '../snapshots/snapshots.js';
import { diskUsage, reclaimableDirs, removeDir } from './disk.js';
import { ownChanges } from './made-by-lanes.js';
import { mayDeleteWorktree, within } from './may-delete.js';
import { removeWorktreeSafely } from './remove-safely.js';
import type { RefusalRule } from './remove-safely.js';
import { factsOf, lanesLockReason, readScene, real } from './worktree-facts.js';
import type { WorktreeFacts, WorktreeScene } from './worktree-facts.js';

export interface WorktreeGcOptions {
  dryRun?: boolean;
  /** Only worktrees whose branch is merged into the main branch. */
  merged?: boolean;
  /** Only worktrees whose last activity is older than this many ms. */
  olderThanMs?: number;
  /** Unmerged worktrees keep their worktree and lose only their rebuildable directories. */
  reclaim?: boolean;
  /** Ignored files that are neither rebuildable nor copies of the main worktree's go with their worktree (else it is kept). */
  deleteIgnored?: boolean;
}

export type WorktreeOutcome = 'removed' | 'would-remove' | 'reclaimed' | 'would-reclaim' | 'kept' | 'failed';

export interface WorktreeGcItem {
  path: string;
  branch: string | null;
  /** This host's sessions that worked in it, newest first. */
  sessions: string[];
  /** The last sign of work in it (its sessions' last heartbeat or end), ms since the epoch. */
  lastActivity: number | null;
  /** Its branch (or detached HEAD) is contained in the main branch. */
  merged: boolean;
  /** Uncommitted files (git status), saved in a snapshot before anything is removed. */
  unsaved: number;
  /** Disk usage before (du), null when it could not be told. */
  bytes: number | null;
  outcome: WorktreeOutcome;
  /** Why it was kept (a rule of may-delete.ts or a filter), or why it failed. */
  why: string | null;
  rule: RefusalRule | 'filter' | null;
  snapshot: string | null;
  branchDeleted: string | null;
  /** The rebuildable directories deleted (or that would be, in a dry run). */
  reclaimed: string[];
  /** Bytes freed (or that would be). */
  freedBytes: number;
  notes: string[];
}

export interface WorktreeGcReport {
  dryRun: boolean;
  repository: string;
  /** The dead sessions of this host ended first (their work snapshotted): plain lanes gc. */
  ended: GcReport;
  items: WorktreeGcItem[];
  freedBytes: number;
  /** Linked worktrees lanes did not make: never listed, never touched. */
  notMadeByLanes: number;
  /** False where the processes' working directories could not be read (then only sessions count). */
  processesChecked: boolean;
  /** Processes whose working directory could not be read (another user's, without root): not seen. */
  processesUnreadable: number;
}

export interface WorktreeGcDeps {
  snapshots: SnapshotService;
  gc: (o: { dryRun: boolean }) => Promise<GcReport>;
}

/**
 * `lanes gc --worktrees`: the worktrees lanes made whose sessions ended or died, each with its
 * disk usage and state; removed (its uncommitted work snapshotted first, its branch deleted when
 * merged and kept otherwise), or with `reclaim` only its rebuildable directories when unmerged.
 * What may be deleted is decided by may-delete.ts alone.
 */
export async function gcWorktrees(
  ctx: LanesContext,
  deps: WorktreeGcDeps,
  options: WorktreeGcOptions = {},
): Promise<WorktreeGcReport> {
  const dryRun = options.dryRun === true;
  const ended = await deps.gc({ dryRun });
  const scene = await readScene(ctx);
  const mainBranch = await defaultBranch(scene.mainWorktree);
  const reclaimNames = (await loadConfig(ctx, scene.mainWorktree)).worktree.reclaim;
  const now = Date.now();
  const report: WorktreeGcReport = {
    dryRun,
    repository: scene.mainWorktree,
    ended,
    items: [],
    freedBytes: 0,
    notMadeByLanes: 0,
    processesChecked: scene.cwds !== null,
    processesUnreadable: scene.cwds?.unreadable ?? 0,
  };
  // In a dry run the dead are not ended yet: they would be, so they do not keep their worktree.
  const wouldEnd = new Set(dryRun ? ended.items.map((i) => i.session) : []);
  for (const entry of scene.linked) {
    if (entry.prunable || !existsSync(entry.path)) continue;
    const facts = factsOf(scene, entry, { sessions: wouldEnd });
    if (!facts.madeByLanes) {
      report.notMadeByLanes++;
      continue;
    }
    const verdict = mayDeleteWorktree(facts);
    // A worktree lanes keeps anyway gets no git status: it may be a live agent's (and so no index.lock).
    const item = await describe(facts, mainBranch, scene.mainWorktree, verdict.ok).catch((e: unknown) =>
      failedItem(facts, e),
    );
    report.items.push(item);
    if (item.outcome === 'failed') continue;
    const filtered = !verdict.ok ? null : filter(item, options, now);
    if (!verdict.ok || filtered) {
      item.outcome = 'kept';
      item.why = verdict.ok ? filtered : verdict.why;
      item.rule = verdict.ok ? 'filter' : verdict.rule;
      continue;
    }
    try {
      if (!item.merged && options.reclaim) await reclaim(ctx, scene, item, entry, reclaimNames, dryRun);
      else {
        const removal = await removeWorktreeSafely(ctx, deps.snapshots, scene, entry, {
          owner: facts.sessions[0]?.id ?? orphanOwner(entry.path),
          reason: 'lanes gc --worktrees',
          ...(wouldEnd.size ? { ignore: { sessions: wouldEnd } } : {}),
          mainBranch,
          reclaim: reclaimNames,
          ...(options.deleteIgnored ? { ignored: 'delete' as const } : {}),
          dryRun,
        });
        item.snapshot = removal.snapshot?.ref ?? null;
        item.branchDeleted = removal.branchDeleted;
        item.notes.push(...removal.notes);
        if (removal.refused) {
          item.outcome = 'kept';
          item.why = removal.refused.why;
          item.rule = removal.refused.rule;
        } else {
          item.outcome = dryRun ? 'would-remove' : 'removed';
          item.freedBytes = item.bytes ?? 0;
        }
      }
    } catch (e) {
      item.outcome = 'failed';
      item.why = (e as Error).message.split('\n')[0] ?? String(e);
    }
    report.freedBytes += item.freedBytes;
    if (item.outcome === 'removed' || item.outcome === 'reclaimed')
      await ctx.journal.record({
        kind: item.outcome === 'removed' ? 'worktree.remove' : 'worktree.reclaim',
        subject: item.path,
        session: item.sessions[0] ?? null,
        repo: scene.commonDir,
        details: {
          by: 'lanes gc --worktrees',
          branch: item.branch,
          merged: item.merged,
          snapshot: item.snapshot,
          branchDeleted: item.branchDeleted,
          reclaimed: item.reclaimed.map((d) => relative(item.path, d)),
          freedBytes: item.freedBytes,
        },
      });
  }
  return report;
}

function failedItem(facts: WorktreeFacts, e: unknown): WorktreeGcItem {
  return {
    ...blank(facts),
    outcome: 'failed',
    why: `could not read it: ${(e as Error).message.split('\n')[0] ?? String(e)}`,
  };
}

function blank(facts: WorktreeFacts): WorktreeGcItem {
  return {
    path: facts.entry.path,
    branch: facts.entry.branch?.replace(/^refs\/heads\//, '') ?? null,
    sessions: facts.sessions.map((s) => s.id),
    lastActivity: null,
    merged: false,
    unsaved: 0,
    bytes: null,
    outcome: 'kept',
    why: null,
    rule: null,
    snapshot: null,
    branchDeleted: null,
    reclaimed: [],
    freedBytes: 0,
    notes: [],
  };
}

async function describe(
  facts: WorktreeFacts,
  mainBranch: string | null,
  main: string,
  readStatus: boolean,
): Promise<WorktreeGcItem> {
  const { entry, sessions } = facts;
  const branch = entry.branch?.replace(/^refs\/heads\//, '') ?? null;
  // A detached HEAD counts as merged when the main branch contains it.
  const merged =
    mainBranch !== null &&
    branch !== mainBranch &&
    (branch
      ? await branchMerged(main, branch, mainBranch)
      : entry.head !== null && (await isAncestor(main, entry.head, `refs/heads/${mainBranch}`)));
  const activity = sessions.map((s) => s.endedAt ?? s.lastSeenAt);
  const [unsaved, bytes] = await Promise.all([
    readStatus ? status(entry.path).then((s) => ownChanges(entry.path, s).length) : Promise.resolve(0),
    diskUsage(entry.path),
  ]);
  return {
    ...blank(facts),
    lastActivity: activity.length ? Math.max(...activity) : (facts.made?.createdAt ?? null),
    merged,
    unsaved,
    bytes,
  };
}

/** Why the options leave this worktree alone, or null. */
function filter(item: WorktreeGcItem, options: WorktreeGcOptions, now: number): string | null {
  if (options.merged && !item.merged) return 'not merged (--merged)';
  if (options.olderThanMs !== undefined && item.lastActivity !== null && now - item.lastActivity < options.olderThanMs)
    return 'active more recently than --older-than';
  return null;
}

/** Deletes only the rebuildable directories of an unmerged worktree, under git's lock. */
async function reclaim(
  ctx: LanesContext,
  scene: WorktreeScene,
  item: WorktreeGcItem,
  entry: WorktreeEntry,
  names: readonly string[],
  dryRun: boolean,
): Promise<void> {
  const main = scene.mainWorktree;
  // Never a directory that is, or holds, another worktree (a dist/ checkout of gh-pages).
  const dirs = (await reclaimableDirs(entry.path, names)).filter(
    (d) => !scene.worktreeReals.some((w) => within(w, real(d) ?? d)),
  );
  const sizes = await Promise.all(dirs.map((d) => diskUsage(d)));
  item.reclaimed = dirs;
  item.freedBytes = sizes.reduce<number>((a, b) => a + (b ?? 0), 0);
  item.outcome = dryRun ? 'would-reclaim' : 'reclaimed';
  const keep = (rule: RefusalRule | 'filter', why: string): void => {
    Object.assign(item, { outcome: 'kept', why, rule, reclaimed: [], freedBytes: 0 });
  };
  if (dirs.length === 0) return keep('filter', `not merged, and nothing rebuildable in it (${names.join(', ')})`);
  if (dryRun) return;
  if (!(await lockWorktree(main, entry.path, lanesLockReason('reclaiming rebuildable directories', ctx.host))))
    return keep('locked', 'it was locked meanwhile (another lanes, or git worktree lock)');
  try {
    // Again from a fresh read, under the lock: a session that started in it meanwhile keeps it whole.
    const again = mayDeleteWorktree(factsOf(await readScene(ctx, { openOnly: true, also: scene.sessions }), entry));
    if (!again.ok) return keep(again.rule, again.why);
    for (const d of dirs) removeDir(d);
  } finally {
    await unlockWorktree(main, entry.path).catch(() => undefined);
  }
}
