import type { OwnerIdentity } from '../core/process-identity.js';
import type { ResourceRef } from '../core/resource.js';
import type { OwnerJudge } from './types.js';

// The decision journal and the claim waits, as the store holds them (both backends, same contract).

/** What a journal entry records. Dotted: the part before the dot is the area (`lanes log --kind claim`). */
export const JOURNAL_KINDS = [
  'session.start',
  'session.attach',
  'session.end',
  'session.join',
  'session.refuse',
  'session.died',
  'teardown.done',
  'claim.grant',
  'claim.refuse',
  'claim.takeover',
  'claim.release',
  'claim.wait',
  'claim.cycle',
  'gate.wait',
  'state.refuse',
  'handoff.refuse',
  'fence.refuse',
  'hook.deny',
  'hook.warn',
  'hook.unchecked',
  'attention',
  'notify.sent',
  'notify.fail',
  'teardown.fail',
  'trust.allow',
  'trust.deny',
  'trust.refuse',
  'seat.add',
  'seat.remove',
  'seat.exhausted',
  'seat.restore',
  'seat.failover',
  'worktree.remove',
  'worktree.reclaim',
  'worktree.refuse',
  'commit',
  'commit.intent',
  'commit.abort',
  'commit.refuse',
  'guard.refuse',
  'guard.override',
  'snapshot',
  'restore',
  'sweep.flag',
  'conflicts.found',
  'land',
  'land.intent',
  'land.abort',
  'land.refuse',
  'land.ready',
  'land.unready',
  'land.stop',
  'land.push',
  'pr',
  'budget.pause',
  'budget.soft',
  'budget.continue',
  'budget.stop',
  'budget.runaway',
  'pr.checks',
  'adopt',
  'tell',
  'tell.delivered',
  'doctor.fix',
] as const;

export type JournalKind = (typeof JOURNAL_KINDS)[number];

/** One decision to record. The store adds the sequence number, its clock and the host of the writer. */
export interface JournalInput {
  kind: JournalKind;
  /** What it was about: a resource (`path:src/x`), a session id, a ref, a snapshot. */
  subject: string;
  session?: string | null;
  /** The repository (git common dir) or claim scope it concerns. */
  repo?: string | null;
  ticket?: string | null;
  details?: Record<string, unknown>;
}

export interface JournalEntry {
  /**
   * Only grows; a number is visible only with every smaller one, so a follower resuming after N
   * misses nothing and repeats nothing (PostgreSQL numbers entries when they are first read).
   */
  seq: number;
  /** The store's clock, ms since the epoch. */
  at: number;
  session: string | null;
  repo: string | null;
  ticket: string | null;
  host: string;
  kind: JournalKind;
  subject: string;
  details: Record<string, unknown>;
  /**
   * What could not be read of this row (details that are no JSON object, a wrong type, an oversized
   * subject), when something could not: the rest is as read, details {} when they were unreadable.
   */
  unreadable?: string;
}

export interface JournalQuery {
  /** Entries after this sequence number. */
  afterSeq?: number;
  /** Entries at or after this time (store clock, ms). */
  since?: number;
  session?: string;
  ticket?: string;
  repo?: string;
  /** Kinds, or areas (`claim` matches every `claim.*`). */
  kinds?: string[];
  /** Default 1000. */
  limit?: number;
  /** Default 'asc' (oldest first); 'desc' returns the newest `limit` entries, newest first. */
  order?: 'asc' | 'desc';
}

/** Where a follower is: after this sequence number. */
export interface FollowCursor {
  afterSeq: number;
}

/** A session waiting for resources (`lanes claim --wait`), recorded while it waits. */
export interface WaitRecord {
  id: number;
  sessionId: string;
  resources: ResourceRef[];
  /** The waiting process (a wait whose process is gone does not count). */
  owner: OwnerIdentity;
  since: number;
}

/** One step of a wait cycle: `sessionId` waits for `resource`, which `heldBy` holds. */
export interface CycleStep {
  sessionId: string;
  resource: ResourceRef;
  heldBy: string;
}

export type WaitRegistration = { ok: true; wait: WaitRecord } | { ok: false; cycle: CycleStep[] };

export interface JournalStore {
  /** Appends entries in one transaction (their numbers are read back with them: PostgreSQL numbers them when read). */
  appendJournal(entries: JournalInput[]): Promise<void>;
  readJournal(query: JournalQuery): Promise<JournalEntry[]>;
  /**
   * The next entries for a follower after `cursor` (at most 1000 read), in order, filtered by the
   * query (its afterSeq and order ignored): never one twice, never one skipped (numbers are in
   * commit order: shared/journal-follow.ts).
   */
  followJournal(query: JournalQuery, cursor: FollowCursor): Promise<{ entries: JournalEntry[]; cursor: FollowCursor }>;
  /** The highest sequence number written (0 when none). */
  lastJournalSeq(): Promise<number>;
  /** Deletes at most `batch` entries older than `before` (store clock); the count deleted. */
  pruneJournal(before: number, batch: number): Promise<number>;
}

export interface WaitStore {
  /**
   * Records that a session waits for resources, unless that would close a cycle (each resource's
   * current holder, through the waits of live waiters, back to this session): then nothing is
   * written and the cycle is returned. Check and insert are one serialized transaction, so two waits
   * that close a cycle together cannot both be recorded. Journaled (claim.wait or claim.cycle).
   */
  registerWait(
    sessionId: string,
    resources: ResourceRef[],
    owner: OwnerIdentity,
    judge: OwnerJudge,
  ): Promise<WaitRegistration>;
  /**
   * A waiter's periodic check (holders change while it waits: a cycle can close without a new
   * wait). Refreshes the wait; when it now closes a cycle the wait is removed (so of two waiters in
   * one cycle exactly one is refused), journaled, and the cycle returned. Null when there is none
   * (or the wait is gone).
   */
  checkWait(id: number, judge: OwnerJudge): Promise<CycleStep[] | null>;
  endWait(id: number): Promise<void>;
  listWaits(): Promise<WaitRecord[]>;
}
