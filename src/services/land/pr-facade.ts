import type { LanesContext } from '../context.js';
import { sessionNamed } from '../sessions/named.js';
import type { PrResult } from './pull-request.js';
import type { PullRequest } from './pr-list.js';

export type { PrResult } from './pull-request.js';
export type { PullRequest } from './pr-list.js';
export type { ChecksState, PrState } from './pr-state.js';

/** Pull requests of the library (lanes.pullRequests): open one with gh, list them with their checks. */
export interface LanesPullRequests {
  /**
   * Pushes a session's branch (default: the acting one; leased, never an overwrite) and opens a
   * pull request with gh, titled from its ticket and task, its body from the session's record.
   * A session opens its own; a person any; a session another live one only with `force`.
   */
  open(
    session?: string | null,
    options?: { base?: string; remote?: string; title?: string; draft?: boolean; dryRun?: boolean; force?: boolean },
  ): Promise<PrResult>;
  /**
   * The pull requests lanes opened in this repository (`repo`: a repository's identity; `all`:
   * every repository), with their last known state; `refresh` asks gh first for the open ones
   * not asked in the last `minAgeMs` (default 0) and journals what changed.
   */
  list(options?: { repo?: string; all?: boolean; refresh?: boolean; minAgeMs?: number }): Promise<{
    pullRequests: PullRequest[];
    errors: string[];
  }>;
}

export function pullRequestsFacade(ctx: LanesContext): LanesPullRequests {
  return {
    open: async (name, o = {}) => {
      const s = name ? await sessionNamed(ctx, name) : await ctx.requireSession();
      const live = s.endedAt === null && (await ctx.stateOf(s)).state === 'live';
      return (await import('./pull-request.js')).openPullRequest(ctx, s, { ...o, live });
    },
    list: async (o = {}) => {
      const here = o.repo || o.all ? null : await ctx.repo();
      const repo = o.all ? null : (o.repo ?? (here ? ctx.repoId(here) : null));
      if (!o.all && !repo) return { pullRequests: [], errors: [] };
      const m = await import('./pr-list.js');
      if (!o.refresh) return { pullRequests: await m.readPullRequests(ctx, { repo }), errors: [] };
      return m.refreshPullRequests(ctx, { repo, cwd: here?.worktreeRoot ?? ctx.cwd, minAgeMs: o.minAgeMs ?? 0 });
    },
  };
}
