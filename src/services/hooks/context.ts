import type { LanesConfig } from '../../core/config.js';
import type { ResourceRef } from '../../core/resource.js';
import type { RepoInfo } from '../../git/repo.js';
import type { AttentionState, ClaimRecord, SessionRecord, StateRecord } from '../../store/types.js';
import type { TouchedHit } from '../../store/touched-types.js';
import type { EndResult } from '../sessions/end-session.js';
import type { AttachOptions } from '../sessions/sessions.js';
import type { SnapshotResult } from '../snapshots/snapshots.js';
import type { Mutator } from '../state/state.js';
import type { Exhausted, QuotaSignal } from '../seats/exhaust.js';
import type { ProcessFacts } from '../../core/platform/types.js';

/**
 * What the hook policy may use: a narrow view of the library, built once per openLanes(). The
 * policy decides; it reaches the store, git and the other services only through these calls.
 */
export interface HookContext {
  /** This machine's host id (worktrees are directories of one host). */
  readonly host: string;
  /** A repository's identity in claim scopes and session records. */
  repoId(repo: RepoInfo): string;
  /** Sessions that are live right now, among those `which` keeps. */
  liveSessions(which: (s: SessionRecord) => boolean): Promise<SessionRecord[]>;
  /** Those of these sessions that are live right now (one read, one liveness proof each). */
  liveAmong(ids: string[]): Promise<SessionRecord[]>;
  /** The open sessions that touched these paths of a repository (touched-types.ts), through the index. */
  touchedAt(repo: string, keys: string[]): Promise<TouchedHit[]>;
  /** Keeps the index of touched paths up to date with a session's list (`replace`: the whole list). */
  indexTouched(sessionId: string, repo: string, paths: string[], replace: boolean): Promise<void>;
  /** A session's record (an agent's own id bound to a lanes run: the run's), or null when the store does not know it. */
  findSession(id: string): Promise<SessionRecord | null>;
  /**
   * The open session of the lanes run this hook call is part of (LANES_RUN, set by lanes' wrappers
   * for the command they run), when its owner is one of these ancestors of the hook; else null.
   */
  runAbove(chain: ProcessFacts[]): Promise<SessionRecord | null>;
  /** This call acts as `id` (the run an agent's session is bound to): its closing heartbeat is that session's. */
  actAs(id: string): void;
  /** Binds the agent's own session to the run's (sessions.ts bindRun); null when refused. */
  bindRun(
    run: SessionRecord,
    o: { conversation: string; agent: string | null; pid: number },
  ): Promise<SessionRecord | null>;
  attachSession(options: AttachOptions): Promise<{ session: SessionRecord; created: boolean; reopened: boolean }>;
  /** The claims of these sessions, in one read. */
  claimsOf(sessionIds: string[]): Promise<ClaimRecord[]>;
  /** The claims (any session's) conflicting with these resources, read through the index. */
  conflictingClaims(refs: ResourceRef[]): Promise<ClaimRecord[]>;
  /** The stored state of several sessions, in one read. */
  readStates(sessionIds: string[]): Promise<StateRecord[]>;
  /** A change of one session's state under its gate. */
  mutateState(sessionId: string, fn: Mutator): Promise<unknown>;
  /** lanes.toml of a worktree merged with the user config. */
  config(worktree: string): Promise<LanesConfig>;
  snapshot(worktree: string, sessionId: string, why: string): Promise<SnapshotResult>;
  /**
   * A subagent's session at its end: its worktree removed with branch and session when nothing
   * changed there, else the session ended (snapshot first) and the worktree kept. Says which.
   * `agentSession`: the agent's own id (the subagent's session was named after it); `pids`: the
   * hook's own processes (they stand in the worktree).
   */
  settleSubagent(sub: SessionRecord, agentSession: string, pids: number[]): Promise<string>;
  /** The one end: snapshot first, then end and release. */
  endSession(id: string, reason: string): Promise<EndResult>;
  /** This call is the agent working (a tool call, a prompt): its waiting or finished is cleared as the call closes. */
  working(): void;
  /** Shows `state` on the session; notifies when it is new (true then). */
  attend(session: SessionRecord, state: AttentionState, why: string | null): Promise<boolean>;
  /** A new prompt: whatever the session showed (a deny of the last turn too) is over. */
  settle(sessionId: string): Promise<void>;
  /** The hook's environment (the agent's: what selects its login, LANES_SESSION). */
  readonly env: Record<string, string | undefined>;
  /** The agent said its login ran out: its seat is exhausted until the reset (services/seats/). */
  seatExhausted(signal: QuotaSignal): Promise<Exhausted | null>;
  /** Tells the person, once per change, that a seat ran out (notify: exhausted). */
  notifyExhausted(session: SessionRecord, why: string): Promise<void>;
}
