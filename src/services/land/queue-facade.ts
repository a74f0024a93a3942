import type { LanesContext } from '../context.js';
import type { Lanes } from '../lanes-api.js';
import { sessionNamed } from '../sessions/named.js';
import type { QueueEntry, QueueStop, ReadyResult } from './queue.js';
import type { QueueRun } from './queue-run.js';
import type { PushResult, RemoteLease } from './push.js';

export type { QueueEntry, QueueStop, ReadyResult } from './queue.js';
export type { QueueOutcome, QueueRun } from './queue-run.js';
export type { PushResult, RemoteLease } from './push.js';

/** The landing queue of the library (lanes.queue): ready, the line, and a run of it. */
export interface LanesQueue {
  /**
   * Marks a session ready to land (default: the acting one), or takes it out (`undo`). A session
   * marks itself; a person any session; a session another live one only with `force`.
   */
  ready(session?: string | null, options?: { undo?: boolean; force?: boolean; into?: string }): Promise<ReadyResult>;
  /**
   * The line of this repository (or of `repo`, a repository's identity as the journal has it) in
   * order, and the sessions the queue stopped since they were last ready.
   */
  list(options?: { repo?: string }): Promise<{ ready: QueueEntry[]; stopped: QueueStop[] }>;
  /** Lands the ready sessions one at a time in order (lanes land --queue). */
  run(options?: { into?: string }): Promise<QueueRun>;
  /**
   * Where the target's remote is now, read before a landing (lanes land --push): a remote with
   * commits the target here lacks is refused (E_FLAGGED), nothing landed or pushed.
   */
  lease(options?: { into?: string; remote?: string }): Promise<RemoteLease>;
  /** The target pushed only if its remote is still where `lease` read it (a moved one: E_FLAGGED naming who, never an overwrite). */
  push(lease: RemoteLease): Promise<PushResult>;
}

export function queueFacade(ctx: LanesContext, lanes: () => Lanes): LanesQueue {
  return {
    ready: async (name, o = {}) => {
      const s = name ? await sessionNamed(ctx, name) : await ctx.requireSession();
      const live = s.endedAt === null && (await ctx.stateOf(s)).state === 'live';
      return (await import('./queue.js')).markReady(ctx, s, { ...o, live });
    },
    list: async (o = {}) => {
      const repo = o.repo ? null : await ctx.repo();
      const id = o.repo ?? (repo ? ctx.repoId(repo) : null);
      if (!id) return { ready: [], stopped: [] };
      return (await import('./queue.js')).readQueue(ctx, id);
    },
    run: async (o = {}) => (await import('./queue-run.js')).runQueue(ctx, lanes(), o),
    lease: async (o = {}) => (await import('./push.js')).leaseRemote(ctx, o),
    push: async (lease) => (await import('./push.js')).pushLanded(ctx, lease),
  };
}
