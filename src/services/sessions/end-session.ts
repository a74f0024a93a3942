import { existsSync } from 'node:fs';
import { writeFailureText } from '../../core/disk-full.js';
import { LanesError } from '../../core/errors.js';
import type { OwnerIdentity } from '../../core/process-identity.js';
import { status } from '../../git/status.js';
import type { ClaimRecord, SessionRecord } from '../../store/types.js';
import type { SessionService } from './sessions.js';
import type { LanesContext } from '../context.js';
import { notSaved } from '../snapshots/snapshots.js';
import type { Snapshot, SnapshotService } from '../snapshots/snapshots.js';
import type { SkippedPath } from '../../git/nested-repos.js';
import type { TeardownOutcome } from './setup.js';

export interface EndOptions {
  /** Why it ended (shown in lanes ls --all). */
  reason?: string;
  /** Also remove its worktree, only when clean or exactly saved in the snapshot just taken. */
  removeWorktree?: boolean;
  /** With removeWorktree: delete its branch even when not merged into the main branch. */
  force?: boolean;
  /**
   * End only if the session still has this owner and last-seen time (lanes gc: as it was when judged
   * dead). A session re-attached or heartbeating since is left open (`changed` in the result); its
   * work was still snapshotted first, which never harms it.
   */
  unchangedSince?: { lastSeenAt: number; owner: OwnerIdentity };
  /**
   * End without the snapshot (`lanes end --skip-snapshot`): for when it cannot be taken. The files
   * stay in the worktree, saved in no ref; a worktree with uncommitted work is then never removed.
   */
  skipSnapshot?: boolean;
  /**
   * End it though it is live and not the caller's (lanes end --force; may-end.ts): journaled as
   * forced. Without it, a live session whose owner is not this process or an ancestor is refused.
   */
  forceLive?: boolean;
  /** Who asks, for the refusal's words (`lanes end`, `lanes stop`, the MCP tool). */
  by?: string;
  /**
   * The session's own agent ends it through its hook door (SessionEnd, a subagent's end, its
   * WorktreeRemove): the hook acts for the session it names, whose process may be exiting already.
   */
  asOwner?: boolean;
  /**
   * It died (its agent killed or crashed under lanes' wrapper): recorded with how and what was
   * saved (session.died, once), and the person notified, before it ends.
   */
  death?: { how: string; details?: Record<string, unknown> };
}

export interface EndResult {
  session: SessionRecord;
  released: ClaimRecord[];
  alreadyEnded: boolean;
  /** unchangedSince was given and the session changed since: nothing was ended or released. */
  changed: boolean;
  snapshot: Snapshot | null;
  worktreeRemoved: boolean;
  branchDeleted: string | null;
  notes: string[];
  /** Its `[session] teardown`, when its setup ran (null: none was due, or another ender ran it). */
  teardown?: TeardownOutcome | null;
}

/**
 * Ends a session the safe way: its uncommitted work is snapshotted first; with removeWorktree the
 * worktree goes only when clean or saved (the snapshot is re-checked against the files right before
 * removal), and its branch only when merged into the main branch, or with force after the snapshot.
 */
export async function endSession(
  ctx: LanesContext,
  sessions: SessionService,
  snapshots: SnapshotService,
  id: string,
  options: EndOptions = {},
): Promise<EndResult> {
  const s = await sessions.get(id);
  const notes: string[] = [];
  let snapshot: Snapshot | null = null;
  const wt = s.worktree && existsSync(s.worktree) ? s.worktree : null;
  let skipped: SkippedPath[] = [];
  // A worktree git cannot read fails the end (its work untouched), unless the snapshot is skipped.
  const changed = wt ? (options.skipSnapshot ? await status(wt).catch(() => []) : await status(wt)).length : 0;
  if (wt && !options.skipSnapshot && changed > 0) {
    const r = await snapshots.snapshot(wt, s.id, options.reason ?? 'lanes end').catch((e: unknown) => {
      const why = (e as Error).message;
      throw new LanesError(
        'E_SNAPSHOT',
        `could not snapshot ${wt}, so session ${id} is not ended and keeps its claims: ${writeFailureText(wt, why)}`,
        {
          hint: `nothing in the worktree was changed; fix the cause and end again, or end it unsaved with \`lanes end ${id} --skip-snapshot\` (the files stay in the worktree, in no ref)`,
        },
      );
    });
    snapshot = r.snapshot;
    skipped = r.skipped;
    const missing = notSaved(skipped);
    if (missing) notes.push(`${missing}; these stay in the worktree only`);
  } else if (wt && options.skipSnapshot) notes.push('--skip-snapshot: uncommitted work was not saved in a ref');
  if (options.death)
    await recordDeath(ctx, s, options.death, { snapshot: snapshot?.ref ?? null, unsavedFiles: changed });
  const ended = await sessions.endRecord(id, options.reason ?? 'ended by lanes end', options.unchangedSince);
  const result: EndResult = { ...ended, snapshot, worktreeRemoved: false, branchDeleted: null, notes };
  if (!options.removeWorktree || ended.changed) return result;
  if (!wt) {
    notes.push('the session has no worktree on disk; nothing to remove');
    return result;
  }
  const { removeNamedWorktree } = await import('../worktrees/remove-named.js');
  const removal = await removeNamedWorktree(ctx, snapshots, s, wt, options);
  result.worktreeRemoved = removal.removed;
  result.branchDeleted = removal.branchDeleted;
  notes.push(...removal.notes);
  return result;
}

/** A death seen by lanes' wrapper: journaled once (session.died) with what was saved, and told. */
async function recordDeath(
  ctx: LanesContext,
  s: SessionRecord,
  death: NonNullable<EndOptions['death']>,
  saved: { snapshot: string | null; unsavedFiles: number },
): Promise<void> {
  const recorded = await ctx.store.recordDied(s.id, death.how, { ...saved, ...death.details }).catch(() => false);
  if (!recorded) return;
  const { notifyLater } = await import('../notify/dispatch.js');
  const { notifyEventOf } = await import('../notify/events.js');
  const why = `${death.how}${saved.snapshot ? `; its work is saved in ${saved.snapshot}` : ''}`;
  await notifyLater(ctx, [notifyEventOf('died', s, why, await ctx.store.now())]).catch(() => undefined);
}
