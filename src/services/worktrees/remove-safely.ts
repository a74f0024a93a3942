import { captureWorktree } from '../../git/snapshot.js';
import { status } from '../../git/status.js';
import { linkedGitDir, lockWorktree, unlockWorktree } from '../../git/worktree-lock.js';
import { branchMerged, deleteBranch, removeWorktree } from '../../git/worktree.js';
import type { WorktreeEntry } from '../../git/worktree.js';
import type { LanesContext } from '../context.js';
import { notSaved } from '../snapshots/snapshots.js';
import type { Snapshot, SnapshotService } from '../snapshots/snapshots.js';
import { ownChanges } from './made-by-lanes.js';
import { hasSubmoduleRepos, ignoredUnsaved, keepDetachedHead, operationInProgress } from './worktree-hazards.js';
import { mayDeleteWorktree } from './may-delete.js';
import type { DeletionRule } from './may-delete.js';
import { factsOf, lanesLockReason, readScene, staleLanesLock } from './worktree-facts.js';
import type { Askers, WorktreeScene } from './worktree-facts.js';

/** Why a removal was refused: a rule of may-delete.ts, or work a snapshot could not hold exactly. */
export type RefusalRule =
  | DeletionRule
  | 'cannot-save'
  | 'changed-while-saving'
  | 'uncommitted'
  | 'operation-in-progress'
  | 'submodules'
  | 'ignored-files';

export interface Removal {
  removed: boolean;
  /** Set when it was not removed: the rule and the reason in words. */
  refused: { rule: RefusalRule; why: string } | null;
  snapshot: Snapshot | null;
  branchDeleted: string | null;
  notes: string[];
}

export interface RemoveOptions {
  /** Whose snapshot the uncommitted work goes into (a session id, or orphanOwner()). */
  owner: string;
  reason: string;
  /** Who asks, left out of the live checks (the session being ended, the agent removing its own). */
  ignore?: Askers;
  /** The main branch: the worktree's branch is deleted only when merged into it. */
  mainBranch: string | null;
  /** Delete the branch even when it is not merged (lanes end --force; its commits stay in the reflog). */
  forceBranch?: boolean;
  /** A person named this worktree (lanes end --remove-worktree): lanes need not have made it. */
  named?: boolean;
  /** Keep a worktree with uncommitted work, once it is saved (an agent removing its own: Claude Code's WorktreeRemove). */
  keepUncommitted?: boolean;
  /**
   * Ignored files that are neither rebuildable (`reclaim`) nor copies of the main worktree's:
   * 'delete' them with the worktree (a person named it, or gc --delete-ignored), 'refuse' (an
   * agent's removal), or by default refuse and name the flag.
   */
  ignored?: 'delete' | 'refuse';
  reclaim?: readonly string[];
  /** Check everything that can be checked without changing anything, then stop (removed stays false). */
  dryRun?: boolean;
}

/**
 * Removes one worktree without losing work: the rules of may-delete.ts first; then git's lock
 * (another remover, git worktree prune and Claude Code leave it alone) and the live checks again,
 * from a fresh read, so a session that started in it meanwhile is seen; its uncommitted work
 * snapshotted, and the snapshot compared with the files right before removal; its branch deleted
 * only when merged (or forced). Unlocked again when anything refuses.
 */
export async function removeWorktreeSafely(
  ctx: LanesContext,
  snapshots: SnapshotService,
  scene: WorktreeScene,
  entry: WorktreeEntry,
  options: RemoveOptions,
): Promise<Removal> {
  const out: Removal = { removed: false, refused: null, snapshot: null, branchDeleted: null, notes: [] };
  const refuse = (rule: RefusalRule, why: string): Removal => ({ ...out, refused: { rule, why } });
  const judge = (s: WorktreeScene) => {
    const facts = factsOf(s, entry, options.ignore);
    return mayDeleteWorktree(options.named ? { ...facts, madeByLanes: true } : facts);
  };
  const first = judge(scene);
  if (!first.ok) return refuse(first.rule, first.why);
  const main = scene.mainWorktree;
  const gitDir = linkedGitDir(entry.path);
  const busy = gitDir ? operationInProgress(gitDir) : null;
  if (busy) return refuse('operation-in-progress', `${busy} is in progress in it`);
  if (gitDir && hasSubmoduleRepos(gitDir))
    return refuse('submodules', 'its submodules keep their repositories in its git dir, with any unpushed commits');
  if (options.ignored !== 'delete') {
    const ignored = await ignoredUnsaved(entry.path, main, options.reclaim ?? []);
    if (ignored.length > 0)
      return refuse(
        'ignored-files',
        `it holds ignored files no snapshot saves (${ignored.slice(0, 5).join(', ')}${ignored.length > 5 ? `, ${ignored.length - 5} more` : ''})${options.ignored === 'refuse' ? '' : '; pass --delete-ignored to remove them too'}`,
      );
  }
  // A dry run stops here: the rules and the worktree's own hazards said yes (its work is not saved yet).
  if (options.dryRun) return out;
  // A lanes removal killed half way left its lock: the rules above saw it as stale; take it back.
  if (entry.locked && staleLanesLock(entry.lockReason, ctx.host))
    await unlockWorktree(main, entry.path).catch(() => undefined);
  if (!(await lockWorktree(main, entry.path, lanesLockReason('removing this worktree', ctx.host))))
    return refuse('locked', 'it was locked meanwhile (another lanes, or git worktree lock)');
  let unlocked = false;
  const unlock = async () => {
    if (!unlocked) await unlockWorktree(main, entry.path).catch(() => undefined);
    unlocked = true;
  };
  try {
    const changes = await status(entry.path);
    // The agents' hooks lanes carried in, unchanged, are lanes' own: no work to save or to keep for.
    const dirty = ownChanges(entry.path, changes).length > 0;
    if (dirty) {
      const r = await snapshots.snapshot(entry.path, options.owner, options.reason);
      out.snapshot = r.snapshot;
      const now = await captureWorktree(entry.path);
      if (now.skipped.length > 0 || r.skipped.length > 0)
        return refuse(
          'cannot-save',
          `it holds what no snapshot can save (${notSaved([...r.skipped, ...now.skipped])})`,
        );
      if (!r.snapshot || now.tree !== r.snapshot.tree)
        return refuse('changed-while-saving', 'its files changed while they were being saved');
      if (options.keepUncommitted)
        return refuse(
          'uncommitted',
          `it has uncommitted work (saved in ${r.snapshot.ref}); commit or discard it first, or remove the worktree with \`lanes gc --worktrees\` once its session has ended`,
        );
    }
    if (!entry.branch && entry.head) {
      const kept = await keepDetachedHead(main, entry.path, entry.head);
      if (kept) out.notes.push(`its detached HEAD ${entry.head.slice(0, 12)} is kept as ${kept}`);
    }
    // Last, right before removal (a snapshot of a big worktree takes time): nobody started there meanwhile.
    const again = judge(await readScene(ctx, { openOnly: true, also: scene.sessions, at: main }));
    if (!again.ok) return refuse(again.rule, again.why);
    await unlock();
    // --force only when every change is saved (or lanes' own): with none, git checks the worktree itself.
    await removeWorktree(main, entry.path, changes.length > 0);
    out.removed = true;
  } finally {
    if (!out.removed) await unlock();
  }
  const branch = entry.branch?.replace(/^refs\/heads\//, '') ?? null;
  if (branch && options.mainBranch && branch !== options.mainBranch) {
    try {
      const merged = await branchMerged(main, branch, options.mainBranch);
      if (merged || options.forceBranch) {
        await deleteBranch(main, branch, true);
        out.branchDeleted = branch;
        if (!merged)
          out.notes.push(
            `branch ${branch} was not merged into ${options.mainBranch}; deleted with --force (its commits stay reachable from ${out.snapshot?.ref ?? 'the reflog'})`,
          );
      } else out.notes.push(`kept branch ${branch}: it is not merged into ${options.mainBranch}`);
    } catch (e) {
      // The worktree is gone either way: a branch that could not be deleted is said, not a failure.
      out.notes.push(`kept branch ${branch}: it could not be deleted (${(e as Error).message.split('\n')[0]})`);
    }
  }
  return out;
}
