import type { SessionRecord } from './types.js';

// What `lanes ls` asks of the open sessions recorded dead (services/sessions/listing.ts overview):
// counts and the few needing attention, answered in the store's indexes, so that a listing costs
// the rows it shows and not every session that ever died without ending. Part of SessionStore.

/** The recorded dead as `lanes ls` shows them: how many, how many need attention, the first of those. */
export interface DeadAttention {
  /** Open sessions recorded dead. */
  dead: number;
  /** Those of them holding claims, or on the host asked about in one of the worktrees named. */
  attention: number;
  /** The first `limit` of those, in order of creation (created_at, id), in full. */
  first: SessionRecord[];
}

export interface DeadStore {
  /**
   * The worktrees on `host` where an open session recorded dead and holding no claim worked, each
   * once, in byte order (their unsaved work is what such a session may have left behind).
   */
  deadWorktrees(host: string): Promise<string[]>;
  /**
   * Counts of the open sessions recorded dead, and those of them needing attention: holding claims,
   * or on `host` in one of `worktrees`; the first `limit` of those in full. All read at once (one
   * snapshot). `exclude`: sessions the caller judges itself, left out of the counts and the rows.
   */
  deadAttention(o: { host: string; worktrees: string[]; limit: number; exclude: string[] }): Promise<DeadAttention>;
}
