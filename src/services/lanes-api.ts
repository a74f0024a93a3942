// The public shape of the library: what `openLanes()` returns. Every caller (the CLI, `lanes hook`,
// the demo, and later the dashboard and the MCP server) reaches every behaviour through it and
// nothing below it, so each behaviour has one code path.
import type { TrustApi } from './trust/trust.js';
import type { LanesConfig } from '../core/config.js';
import type { HookDecision, HookEvent } from '../core/hook-event.js';
import type { Envelope } from '../core/handoff-envelope.js';
import type { ResourceRef } from '../core/resource.js';
import type { PathCommitResult } from '../git/commit-paths.js';
import type { RepoInfo } from '../git/repo.js';
import type { ChangeMark, ClaimRecord, Grant, SessionRecord, StoreInfo } from '../store/types.js';
import type { JournalEntry, JournalQuery, WaitRecord } from '../store/journal-types.js';
import type { ClaimHolder, ClaimOptions } from './claims/claims.js';
import type { ConflictReport } from './conflicts/conflicts.js';
import type { DoctorReport } from './doctor/doctor.js';
import type { GcOptions, GcReport } from './doctor/gc.js';
import type { WorktreesApi } from './worktrees/facade.js';
import type { SeatsApi } from './seats/facade.js';
import type { CommitCheck } from './commits/commit-check.js';
import type { GuardStatus } from './commits/guard.js';
import type { HandoffWritten } from './handoffs/handoffs.js';
import type { LandMode, LandResult } from './land/land.js';
import type { LanesQueue } from './land/queue-facade.js';
import type { LanesPullRequests } from './land/pr-facade.js';
import type { PortLease } from './runtime/ports.js';
import type { SessionEnvironment } from './runtime/runtime-env.js';
import type { SessionView } from './sessions/sessions.js';
import type { Snapshot, SnapshotResult } from './snapshots/snapshots.js';
import type { Json, Mutator } from './state/state.js';
import type { SweepOptions, SweepReport } from './snapshots/sweep.js';

export type { SweepOptions } from './snapshots/sweep.js';
import type { WaitOptions } from './wait.js';
import type { CreatedWorktree } from './worktrees/worktrees.js';

export type { LanesSessions } from './lanes-sessions-api.js';
import type { LanesSessions } from './lanes-sessions-api.js';

export interface LanesClaims {
  /** Claims all resources or none; each grant carries a fencing token. */
  claim(resources: string[], options?: ClaimOptions): Promise<Grant[]>;
  release(
    resources: string[],
    options?: { session?: string },
  ): Promise<{ released: ClaimRecord[]; notHeld: ResourceRef[] }>;
  /** Claims of this repository and host (every claim with `all`), with their holders' state. */
  list(options?: { all?: boolean }): Promise<ClaimHolder[]>;
  /** Who holds this resource or anything overlapping it. */
  check(resource: string, options?: { scope?: 'repo' }): Promise<{ ref: ResourceRef; holders: ClaimHolder[] }>;
  /** Passes only while `token` is the current grant of the resource (else E_FENCED, exit 4). */
  assertFenced(resource: string | ResourceRef, token: number): Promise<void>;
  /** Sessions waiting for resources now (`claim --wait`), with who holds them (every host's). */
  waits(): Promise<WaitView[]>;
  /** Releases every claim of a dead or ended session; a live one is refused (E_CLAIM_HELD, exit 3). */
  releaseDead(session: string): Promise<ClaimRecord[]>;
}

export interface LanesState {
  /** The last committed state of a session, ended or not (never waits); E_UNKNOWN_SESSION for one the store never knew. */
  get(session: string): Promise<Json | undefined>;
  /** One key of a session's state (E_NOT_FOUND when absent). */
  getKey(session: string, key: string): Promise<Json>;
  /**
   * Runs fn under the session's gate and stores what it returns (CLEAR deletes). A session the
   * store does not know is E_UNKNOWN_SESSION; an ended session's state can be cleared, not written
   * (E_SESSION_ENDED); both are read in the same step that takes the gate. On SQLite a function
   * that returns at once (not declared async) runs inside that one write step when the gate is
   * free, so keep it short; an async function takes the gate first and runs outside any transaction.
   * Code inside fn is inside its frame (a nested mutate of the session joins it, a clear is
   * refused): an async function's through all its awaits, a plain function's for its synchronous
   * run only, and never past its mutate. In a plain function that returns a promise, a mutate of
   * the same session after an await waits for its own outer mutate: declare such a function async.
   */
  mutate(session: string, fn: Mutator, options?: WaitOptions): Promise<Json | undefined>;
  /** Sets one key under the gate; returns the whole new state. */
  setKey(session: string, key: string, value: Json, options?: WaitOptions): Promise<Json | undefined>;
  /** Removes one key under the gate (the state goes when it was the last key). */
  clearKey(session: string, key: string, options?: WaitOptions): Promise<Json | undefined>;
  /** Deletes the whole state under the gate; refused from inside a mutate of the same session. */
  clear(session: string, options?: WaitOptions): Promise<boolean>;
  /** Decides and clears in one gated step. */
  clearIf(
    session: string,
    predicate: (current: Json | undefined) => boolean | Promise<boolean>,
    options?: WaitOptions,
  ): Promise<boolean>;
}

export interface LanesHandoffs {
  put(name: string, payload: Buffer | string, options?: { session?: string }): Promise<HandoffWritten>;
  /** Reads a handoff of this session (or of `from`) after proving its writer and checksum. */
  get(name: string, options?: { from?: string; session?: string }): Promise<Envelope & { path: string }>;
  /** A private per-session path for a tool that must write its own file. */
  path(name: string, options?: { session?: string }): Promise<string>;
  /** An envelope at an explicit directory (lanes' envelope on a path shared with other tools). */
  putAt(dir: string, name: string, payload: Buffer | string, session: string): HandoffWritten;
  getAt(dir: string, name: string, expectedSession: string): Envelope;
}

export interface LanesSnapshots {
  /** Saves the session's uncommitted work to a private ref (default: the current session). */
  snapshot(options?: { session?: string; why?: string }): Promise<SnapshotResult>;
  list(session?: string): Promise<Snapshot[]>;
  restore(snapshot: string, into?: string): Promise<{ snapshot: Snapshot; path: string; branch: string | null }>;
}

export interface LanesPorts {
  /** A TCP port leased to the session for `name`, stable for the session and name. */
  lease(name: string, options?: { session?: string }): Promise<number>;
  /** Leased ports of this machine with their sessions and names. */
  list(): Promise<PortLease[]>;
}

export interface LanesGuard {
  install(options: { protect?: string[]; lanesCommand: string }): Promise<GuardStatus>;
  uninstall(): Promise<GuardStatus>;
  status(): Promise<GuardStatus>;
  /**
   * The pre-commit decision: refused when a staged path is claimed by another live session, or when
   * another live session shares this worktree's index and a staged path is not the committer's
   * claim (LANES_ALLOW_SHARED_INDEX=1 waives that for one commit). Refusals and overrides are journaled.
   */
  checkCommit(): Promise<CommitCheck>;
}

export interface LanesJournal {
  /** Entries matching the query: oldest first, or the newest `limit` newest first with order 'desc' (default limit 1000). */
  list(query?: JournalQuery): Promise<JournalEntry[]>;
  /**
   * Calls onEntries with each batch of new entries after `query.afterSeq` (default: the newest now),
   * in sequence order, never missing or repeating one, within 0.5 s of their commit, until the
   * signal aborts (then it resolves).
   */
  follow(
    query: JournalQuery,
    onEntries: (entries: JournalEntry[]) => void | Promise<void>,
    options: { signal: AbortSignal; pollMs?: number },
  ): Promise<void>;
  /**
   * Deletes entries older than the retention ([journal] retention in the user config, default 30
   * days), in small batches (each a short transaction, so writers never wait long). `background`:
   * what ordinary commands do after their work: one read when nothing is due, else a few batches.
   */
  prune(options?: { olderThanMs?: number; background?: boolean }): Promise<number>;
}

/** A session waiting for resources, and who holds them now. */
export interface WaitView {
  wait: WaitRecord;
  session: SessionRecord | null;
  /** Whether the waiting process still runs. */
  live: boolean;
  heldBy: ClaimHolder[];
}

export interface Lanes {
  /**
   * The session this object acts as, or null: the `session` option, else $LANES_SESSION when live,
   * else the live session owned by the nearest ancestor of this process (an agent's, for a command
   * its model runs).
   */
  readonly sessionId: string | null;
  /** How sessionId was found ('LANES_SESSION', 'the session of pid N (codex), …', 'given'), or null. */
  readonly sessionHow: string | null;
  /** Which store this is (backend, location without any password, schema version). */
  readonly storeInfo: StoreInfo;
  /** The store's clock (ms since the epoch): ages shown to users are measured on it. */
  now(): Promise<number>;
  /**
   * The store's change mark (ChangeMark): what a watcher compares instead of reading the store
   * again. Equal journal parts: no new journal entry (and so no claim change); equal fleet parts: no
   * open session or wait changed. Cheap (SQLite: no table read when nothing was written); `fleet:
   * false` leaves out the part that costs a pass over the open sessions on PostgreSQL.
   */
  changes(options?: { fleet?: boolean }): Promise<ChangeMark>;
  /** The repository and worktree of the working directory, or null outside one. */
  repository(): Promise<RepoInfo | null>;
  /** lanes.toml of the session's worktree (or the working directory's) merged with the user config. */
  config(worktree?: string | null): Promise<LanesConfig & { files: string[] }>;
  readonly sessions: LanesSessions;
  readonly claims: LanesClaims;
  readonly state: LanesState;
  readonly handoffs: LanesHandoffs;
  readonly snapshots: LanesSnapshots;
  readonly ports: LanesPorts;
  readonly guard: LanesGuard;
  /** The decision journal: every claim, refusal, deny, commit, snapshot, land … in commit order. */
  readonly journal: LanesJournal;
  /** A new worktree + branch lanes/<slug> for a session (lanes start --worktree). */
  createWorktree(options: {
    ticket?: string | null;
    label?: string | null;
    base?: string | null;
  }): Promise<CreatedWorktree>;
  /** Exactly these paths (relative to the working directory) onto this worktree's branch. */
  commit(paths: string[], message: string): Promise<PathCommitResult>;
  /** Snapshots every dirty worktree to private refs; flags collisions and stale copies. */
  sweep(options?: SweepOptions): Promise<SweepReport>;
  /** Predicted overlaps between live sessions and with the target branch. */
  conflicts(options?: { against?: string }): Promise<ConflictReport>;
  /** Publishes this session's branch, fenced by its ticket claim. */
  /** expectTip: land only if the branch is at that commit (what the landing queue checked). */
  land(options?: {
    into?: string;
    mode?: LandMode;
    branch?: string;
    session?: string;
    expectTip?: string;
  }): Promise<LandResult>;
  /** The landing queue: sessions marked ready, landed one at a time in that order (lanes land --queue). */
  readonly queue: LanesQueue;
  /** Pull requests opened with gh (lanes pr), with their checks' state. */
  readonly pullRequests: LanesPullRequests;
  /**
   * Lands the branch of a session that finished, died or ended (`name`: its id, its ticket, a
   * label) from the main worktree, its worktree there or gone: through a session of this call's own
   * that claims the ticket (fenced), lands and ends. A live session lands its own (E_NOT_YOURS).
   */
  landFinished(
    name: string,
    options?: { into?: string; mode?: LandMode; expectTip?: string },
  ): Promise<LandResult & { of: string }>;
  /** Takes over a dead or ended session's claims, ticket and worktree. */
  adopt(session: string, options?: { session?: string }): Promise<{ worktree: string | null; grants: Grant[] }>;
  /** The session's environment: identity, private dirs, leased ports, templates, what exec strips. */
  environment(options?: {
    session?: string | null;
    inherited?: Record<string, string | undefined>;
  }): Promise<SessionEnvironment & { session: SessionView }>;
  /**
   * Dead sessions, unsaved or kept worktrees, stale claims, shared worktrees, each with a severity;
   * `fix` repairs what is safe and says why for the rest. `lanesCommand` (how hooks run lanes, as
   * `guard.install` takes it) lets `fix` install a missing guard.
   */
  doctor(options?: { fix?: boolean; lanesCommand?: string }): Promise<DoctorReport>;
  /**
   * Ends this host's dead sessions safely (each snapshotted first, then ended and released; one
   * re-attached meanwhile is left open); `dryRun` only reports. `background`: the bounded reaping
   * of ordinary commands (recorded dead for the grace period, a few per call).
   */
  gc(options?: GcOptions): Promise<GcReport>;
  /** The worktrees lanes made: bulk cleanup that never loses work, and Claude Code's own (its hooks). */
  worktrees: WorktreesApi;
  /** Seats: the agents' logins, leased to sessions, exhausted when their agent says so (services/seats/). */
  seats: SeatsApi;
  /** The user's word on repositories' lanes.toml: nothing of one runs until allowed (services/trust/). */
  trust: TrustApi;
  /** The decision for one agent hook call (adapters translate the agent's JSON to and from it). */
  hook(event: HookEvent): Promise<HookDecision>;
  /** Refreshes the current session's lease (close() does it too). */
  heartbeat(options?: { unlessFresh?: boolean }): Promise<boolean>;
  /**
   * Closes the store, first refreshing the session's lease unless it is fresh (refreshed by this
   * object within the last second, or in the store within a twelfth of the lease);
   * `heartbeat: false` skips that (a command that failed did not act as the session).
   */
  close(options?: { heartbeat?: boolean }): Promise<void>;
}
