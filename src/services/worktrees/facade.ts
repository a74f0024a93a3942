import type { ClaimService } from '../claims/claims.js';
import type { LanesContext } from '../context.js';
import type { EndOptions, EndResult } from '../sessions/end-session.js';
import type { SessionService } from '../sessions/sessions.js';
import type { SnapshotService } from '../snapshots/snapshots.js';
import type { StateService } from '../state/state.js';
import type { AgentRemoval, AgentWorktree, AgentWorktreeRequest } from './agent-worktrees.js';
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
  /**
   * An agent's own worktree (Claude Code's WorktreeCreate): a lanes worktree from this directory's
   * HEAD, with a session working in it (the agent's own when it is not live yet, else one for the worktree).
   */
  agentCreate(request: AgentWorktreeRequest): Promise<AgentWorktree>;
  /**
   * Claude Code's WorktreeRemove: removed when lanes made it, nobody else works in it and nothing is
   * uncommitted (saved in a snapshot first either way); else kept, with the rule and reason (journaled).
   * `pid`: the agent, whose processes may stand in it; `pids`: the hook's own (its shell).
   */
  /** Notes files lanes put in a worktree it made (the agents' hooks it carried): unchanged, they are not the session's work. */
  markCarried(worktree: string, files: string[]): Promise<void>;
  agentRemove(request: {
    agent: string;
    session: string;
    path: string;
    pid: number;
    pids: number[];
  }): Promise<AgentRemoval>;
}

export function worktreesFacade(ctx: LanesContext, deps: WorktreeServices): WorktreesApi {
  return {
    agentCreate: async (r) => (await import('./agent-worktrees.js')).createAgentWorktree(ctx, deps.sessions, r),
    // The agent's WorktreeRemove ends the sessions of its own worktree: its hook door acts for them.
    agentRemove: async (r) =>
      (await import('./agent-worktrees.js')).removeAgentWorktree(
        ctx,
        { ...deps, end: (id, o) => deps.end(id, { ...o, asOwner: true }) },
        r,
      ),
    markCarried: async (w, f) => (await import('./made-by-lanes.js')).markCarried(w, f),
    gc: async (o = {}) => {
      const { gcWorktrees } = await import('./gc-worktrees.js');
      const { gc } = await import('../doctor/gc.js');
      return gcWorktrees(ctx, { snapshots: deps.snapshots, gc: (g) => gc(ctx, deps, g) }, o);
    },
  };
}
