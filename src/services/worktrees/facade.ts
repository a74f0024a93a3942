import type { ClaimService } from '../claims/claims.js';
import type { LanesContext } from '../context.js';
import type { EndOptions, EndResult } from '../sessions/end-session.js';
import type { SessionService } from '../sessions/sessions.js';
import type { SnapshotService } from '../snapshots/snapshots.js';
import type { StateService } from '../state/state.js';
import type { WorktreeGcOptions, WorktreeGcReport } from './gc-worktrees.js';

export interface WorktreeServices {
  snapshots: SnapshotService;
  sessions: SessionService;
  claims: ClaimService;
  state: StateService;
  end: (id: string, options: EndOptions) => Promise<EndResult>;
}

/** `lanes.worktrees`: the worktrees lanes makes and cleans up, each part loaded on first use. */
export interface WorktreesApi {
  /**
   * `lanes gc --worktrees`: ends this host's dead sessions, then lists the worktrees lanes made
   * whose sessions ended or died (disk usage, merged, unsaved files, last activity) and removes
   * them without losing work (gc-worktrees.ts); `dryRun` only reports.
   */
  gc(options?: WorktreeGcOptions): Promise<WorktreeGcReport>;
}

export function worktreesFacade(ctx: LanesContext, deps: WorktreeServices): WorktreesApi {
  return {
    gc: async (o = {}) => {
      const { gcWorktrees } = await import('./gc-worktrees.js');
      const { gc } = await import('../doctor/gc.js');
      return gcWorktrees(ctx, { snapshots: deps.snapshots, gc: (g) => gc(ctx, deps, g) }, o);
    },
  };
}
