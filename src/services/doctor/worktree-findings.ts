import { captureWorktree } from '../../git/snapshot.js';
import { status } from '../../git/status.js';
import type { WorktreeEntry } from '../../git/worktree.js';
import type { SessionRecord } from '../../store/types.js';
import { notSaved, orphanOwner } from '../snapshots/snapshots.js';
import type { SnapshotService } from '../snapshots/snapshots.js';
import { finding } from './findings.js';
import type { Finding } from './findings.js';

/** A worktree nobody works in any more, with what --fix would save it as. */
export interface Unattended {
  worktree: string;
  /** The snapshot owner: the ended session that worked there, else the worktree's orphan name. */
  owner: string;
}

/**
 * Worktrees without an open session. Kept and clean, or kept with every uncommitted change already
 * in its last snapshot (what `lanes end` leaves), is how things are: information. Uncommitted work
 * saved in no snapshot is a warning, which --fix settles by taking one.
 */
export async function unattendedWorktree(
  w: WorktreeEntry,
  ended: SessionRecord | undefined,
  snapshots: SnapshotService,
): Promise<{ finding: Finding; unsaved: Unattended | null }> {
  const owner = ended?.id ?? orphanOwner(w.path);
  const whose = ended ? `of ended session ${ended.id}` : 'without a lanes session';
  const where = { worktree: w.path, ...(ended ? { session: ended.id } : {}) };
  const dirty = (await status(w.path)).length;
  if (dirty === 0)
    return {
      finding: finding(
        'kept-worktree',
        `worktree ${w.path} ${whose} is kept; nothing uncommitted (\`lanes gc --worktrees\` removes such worktrees)`,
        where,
      ),
      unsaved: null,
    };
  const cap = await captureWorktree(w.path);
  const skipped = notSaved(cap.skipped);
  const last = (await snapshots.list(owner)).at(-1);
  if (last && last.tree === cap.tree && last.parent === cap.head)
    return {
      finding: finding(
        'kept-worktree',
        `worktree ${w.path} ${whose} is kept; its ${dirty} uncommitted files are saved as ${last.ref}${skipped ? ` (${skipped})` : ''} (\`lanes gc --worktrees\` removes such worktrees)`,
        where,
      ),
      unsaved: null,
    };
  return {
    finding: finding(
      'unsaved-worktree',
      `worktree ${w.path} ${whose} has ${dirty} uncommitted files saved in no snapshot${skipped ? ` (${skipped})` : ''}`,
      where,
    ),
    unsaved: { worktree: w.path, owner },
  };
}

/** The last ended session of each worktree path (newest end wins). */
export function lastEndedBy(ended: SessionRecord[]): Map<string, SessionRecord> {
  const by = new Map<string, SessionRecord>();
  for (const s of ended) {
    if (!s.worktree) continue;
    const seen = by.get(s.worktree);
    if (!seen || (s.endedAt ?? 0) > (seen.endedAt ?? 0)) by.set(s.worktree, s);
  }
  return by;
}
