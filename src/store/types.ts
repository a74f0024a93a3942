import type { Attention, AttentionState } from './shared/attention.js';
import type { JournalInput, JournalStore, WaitStore } from './journal-types.js';
import type { SeatStore } from './seat-types.js';
import type { TouchedStore } from './touched-types.js';
import type { GateStore } from './gate-types.js';
import type { ClaimListStore } from './claim-list-types.js';
import type { ChangeStore } from './change-types.js';
import type { DumpStore } from './dump-types.js';
import type { DeadStore } from './dead-types.js';

export type { ChangeMark, ChangeStore } from './change-types.js';
export type { DumpStore, StoreDump } from './dump-types.js';
export type { DeadAttention, DeadStore } from './dead-types.js';
import type { OwnerIdentity } from '../core/process-identity.js';
import type { ResourceRef } from '../core/resource.js';
import type { HeldClaim } from '../core/claim-plan.js';
import type { OwnerToJudge, Verdict } from '../core/liveness.js';

export type {
  GateAttempt,
  GateHolder,
  GateLine,
  GateLineStore,
  GateRecord,
  GateStepOutcome,
  GateStepResult,
  GateStore,
  GateTurn,
  StateChange,
  StateOwner,
  StateRecord,
} from './gate-types.js';

export type { Attention, AttentionState } from './shared/attention.js';

// The one storage interface. Every backend (SQLite, PostgreSQL) implements it and runs
// the same contract suite (test/store/contract.ts). Times: ms on the STORE's clock, so leases agree across hosts.

export interface SessionRecord {
  id: string;
  label: string | null;
  agent: string | null;
  ticket: string | null;
  /** Git common dir of the repository the session started in, or null. */
  repo: string | null;
  worktree: string | null;
  cwd: string;
  owner: OwnerIdentity;
  command: string | null;
  createdAt: number;
  lastSeenAt: number;
  endedAt: number | null;
  endReason: string | null;
  /**
   * Why a judge proved this open session dead, recorded once (recordDead) so the hot path does not
   * judge it again; null when never proven, ended, or refreshed since (a heartbeat or re-attach
   * moves lastSeenAt, and the record lapses with it).
   */
  deadWhy: string | null;
  /**
   * What the agent last signalled that a person may want to see (its hooks): waiting for them, its
   * turn finished, a call denied. Null while it works, or when it never said. Died is liveness, not this.
   */
  attention: Attention | null;
  /** Where a session lanes started runs: `tmux NAME` (lanes new), `background LOGFILE`; null otherwise. */
  terminal: string | null;
  /**
   * The agent's own session (`<agent>:<its id>`) when the agent runs inside a run lanes launched
   * (lanes new, up, start -- CMD): its hooks act as this session instead of registering another.
   */
  conversation: string | null;
  /** The agent process that bound `conversation` (another agent inside the run binds only once it is gone). */
  conversationPid: number | null;
  /** The session this one was made for (a Claude Code subagent's worktree: its parent's), or null. */
  parent: string | null;
  /** The task the agent was started with (lanes new --prompt), or null. */
  task: string | null;
  /** How it died (killed, crashed, owner gone), kept after its end; null: it never died. */
  died: string | null;
  /**
   * Its `[session] setup`: null (none ran: no teardown ever), `done` (its teardown is due),
   * `tearing` (running, or killed while it ran), `torn` (ran), `failed` (failed: `lanes teardown`),
   * `passed` (handed with its slug to the session that went on with its work: lanes new --resume).
   */
  setupState: SetupState | null;
  /** The slug its templated names use ({slug}): unique among sessions whose teardown is due. */
  envSlug: string | null;
}

/** A session as a listing's order needs it: its id and the session it was made for. */
export interface SessionOutline {
  id: string;
  parent: string | null;
}

export type SetupState = 'done' | 'tearing' | 'torn' | 'failed' | 'passed';

/** The part of SessionStore about a session's life beyond start and end (each backend's session-life.ts). */
export type SessionLifeKeys =
  'recordDead' | 'recordDied' | 'setSetupState' | 'allocateEnvSlug' | 'teardownsDue' | 'passSetup';

export type Attended = { changed: boolean; session: SessionRecord | null };
export type SessionChange = { worktree?: string; ticket?: string; terminal?: string };

export type NewSession = Omit<
  SessionRecord,
  | 'createdAt'
  | 'lastSeenAt'
  | 'endedAt'
  | 'endReason'
  | 'deadWhy'
  | 'attention'
  | 'terminal'
  | 'conversation'
  | 'conversationPid'
  | 'parent'
  | 'task'
  | 'died'
  | 'setupState'
  | 'envSlug'
> & { parent?: string | null; task?: string | null };

/** A session proven dead as it was read: recorded only if it has not changed since. */
export interface DeadMark {
  id: string;
  lastSeenAt: number;
  owner: OwnerIdentity;
  why: string;
}

export type ClaimRecord = HeldClaim;
export type { ClaimKey } from './claim-list-types.js';

/**
 * Judges owners, all those of one decision at once (one read of process facts: one `ps` process on
 * macOS, not one per owner); receives the store's clock. Synchronous and side-effect free.
 */
export type OwnerJudge = (owners: readonly OwnerToJudge[], nowMs: number) => Verdict[];

export interface Grant {
  ref: ResourceRef;
  token: number;
  /** Set when the claim was taken over from a dead or ended session. */
  takenOver?: { claim: ClaimRecord; session: SessionRecord | null; why: string };
}

export type ClaimResult =
  | { ok: true; grants: Grant[] }
  | {
      ok: false;
      blockers: { wanted: ResourceRef; held: ClaimRecord; holder: SessionRecord | null }[];
      /** The store's clock when the claim was refused, when the store read it anyway (saves a read to describe the holders). */
      now?: number;
    };

export interface StoreInfo {
  backend: 'sqlite' | 'postgres';
  location: string;
  schemaVersion: number;
  /** SQLite: `node:sqlite` (sqlite/driver.ts). */
  driver?: string;
  /** PostgreSQL: through this host's broker (postgres/broker/) or straight to the server. */
  connection?: 'broker' | 'direct';
}

// The interface comes in parts, one per kind of record, so that each backend builds each part on
// its connection and assembles its Store from them (no method forwarding in between).

export interface SessionStore extends DeadStore {
  insertSession(session: NewSession): Promise<SessionRecord>;
  getSession(id: string): Promise<SessionRecord | null>;
  /** In order of creation; includeDead: false leaves out the open sessions recorded dead (the hot path's read). */
  listSessions(options: { includeEnded: boolean; includeDead?: boolean }): Promise<SessionRecord[]>;
  /** Several sessions by id, in order of creation (unknown ids are left out). */
  getSessions(ids: string[]): Promise<SessionRecord[]>;
  /**
   * Each session's id and parent (the open ones; every one with `includeEnded`) in order of
   * creation, as listSessions orders them: a listing's order without its records (`lanes ls --all`
   * then reads them a page at a time through getSessions).
   */
  sessionOutline(options: { includeEnded: boolean }): Promise<SessionOutline[]>;
  /**
   * Records sessions a judge proved dead, each only if still open with the same owner and lastSeenAt
   * as judged (else it is judged again next time), with how (`died`) and a session.died entry in the
   * same transaction. The ids this call recorded: each death once.
   */
  recordDead(marks: DeadMark[]): Promise<string[]>;
  /**
   * Refreshes last_seen (the lease of other hosts). False when unknown or ended. With `freshForMs`,
   * a session refreshed within that many ms of the store's clock, and not recorded dead, is left as
   * it is (true, nothing written): every hook call ends with a heartbeat, and a write is an fsync.
   * With `activity` (the agent is working: a tool call, a prompt), attention `waiting` and
   * `finished` are cleared with it (a session showing either is never left as fresh).
   */
  touchSession(id: string, freshForMs?: number, activity?: boolean): Promise<boolean>;
  /**
   * Sets the open session's attention to `state` with `why` (null clears it), journaling `entry`
   * with the change. Only a change is written: `changed` is false when the session already shows
   * that state (or is unknown or ended), so one prompt is notified once however many hooks report it.
   */
  setAttention(id: string, state: AttentionState | null, why: string | null, entry?: JournalInput): Promise<Attended>;
  /**
   * Registers a session under a caller-chosen id, or re-attaches an existing record to a new owner,
   * cwd and worktree (an agent session resumed, cleared or compacted): an ended record is live again,
   * keeping its id and history. One transaction.
   */
  attachSession(session: NewSession): Promise<{ session: SessionRecord; created: boolean; reopened: boolean }>;
  /**
   * Records how an open session died (its agent killed or crashed under lanes' wrapper), journaled
   * with `details` as session.died; once: false when it was recorded already, or is unknown or ended.
   */
  recordDied(id: string, how: string, details: Record<string, unknown>): Promise<boolean>;
  /** Moves a session's setup state from `from` (null: none yet) to `to`; false when it was not `from` (compare-and-set). */
  setSetupState(id: string, from: SetupState | null, to: SetupState): Promise<boolean>;
  /**
   * Gives the session the first of `base`, `base-2`, `base-3`, … that no other session whose
   * teardown is due uses as its slug, and returns it (kept when it has one already).
   */
  allocateEnvSlug(id: string, base: string): Promise<string>;
  /**
   * Hands `from`'s setup (its slug, its teardown due) to `to`, a session going on with its work:
   * when `from`'s setup state is `done`, it becomes `passed` and `to` gets its slug and `done`.
   * False when nothing was due (its teardown ran, or none was ever due).
   */
  passSetup(from: string, to: string): Promise<boolean>;
  /** The sessions whose teardown is due or failed, or ran while killed (setup state done, tearing or failed). */
  teardownsDue(): Promise<SessionRecord[]>;
  /**
   * Binds the agent's own session `conversation` (`<agent>:<id>`), of agent process `pid`, to the
   * open run session `id` (its hooks then act as it), journaled as session.attach; only while the
   * run's conversation is still `expected` (what the caller decided on). Null when `id` is unknown
   * or ended, or its conversation changed meanwhile.
   */
  bindConversation(
    id: string,
    bind: { conversation: string; pid: number; agent: string | null; expected: string | null },
  ): Promise<SessionRecord | null>;
  /** The open session an agent's own session id is bound to (the newest), or null. */
  sessionByConversation(conversation: string): Promise<SessionRecord | null>;
  /** Moves a live session to another worktree or ticket (lanes adopt), or says where it runs. Null when unknown or ended. */
  updateSession(id: string, change: SessionChange): Promise<SessionRecord | null>;
  /**
   * Ends the session and releases all its claims in one transaction. Null when unknown. With
   * `unchangedSince` (lanes gc), only if it is still open with that owner and last seen: a session
   * re-attached or heartbeating since it was judged dead is left alone (`changed: true`).
   */
  endSession(
    id: string,
    reason: string,
    unchangedSince?: Pick<DeadMark, 'lastSeenAt' | 'owner'>,
  ): Promise<{ session: SessionRecord; released: ClaimRecord[]; changed?: true } | null>;
  /** Open sessions recorded dead and last seen before `seenBefore` (store clock), oldest first, at most `limit`. */
  deadSessions(options: { seenBefore: number; limit: number }): Promise<SessionRecord[]>;
}

/** A session registered with its claims (`lanes start --ticket`), or why nothing was registered. */
export type StartClaimResult =
  { ok: true; session: SessionRecord; grants: Grant[] } | Extract<ClaimResult, { ok: false }>;

export interface ClaimStore extends ClaimListStore {
  /** All-or-nothing; takes over claims of dead/ended holders; each grant gets the next token. */
  acquireClaims(sessionId: string, wanted: ResourceRef[], judge: OwnerJudge): Promise<ClaimResult>;
  /** Registers `session` and claims `wanted` in ONE transaction, all or nothing (`lanes start --ticket`). */
  insertSessionClaiming(session: NewSession, wanted: ResourceRef[], judge: OwnerJudge): Promise<StartClaimResult>;
  /**
   * With `unchangedSince` (releasing a dead session's claims for it), only if the session still has
   * that owner and last-seen time: one re-attached since it was judged dead keeps its claims
   * (`changed: true`, nothing released).
   */
  releaseClaims(
    sessionId: string,
    refs: ResourceRef[],
    unchangedSince?: Pick<DeadMark, 'lastSeenAt' | 'owner'>,
  ): Promise<{ released: ClaimRecord[]; notHeld: ResourceRef[]; changed?: true }>;
  /**
   * The claims (any session's) that conflict with any of these resources, read through the index:
   * for a path, the claims on it, on the directories above it and below it (core/path-overlap.ts),
   * never every claim of the scope.
   */
  conflictingClaims(refs: ResourceRef[]): Promise<ClaimRecord[]>;
  /** The highest token ever granted for exactly this resource (0 if never). */
  lastToken(ref: ResourceRef): Promise<number>;
}

export interface Store
  extends
    SessionStore,
    ClaimStore,
    GateStore,
    DumpStore,
    JournalStore,
    WaitStore,
    TouchedStore,
    SeatStore,
    ChangeStore {
  readonly info: StoreInfo;
  now(): Promise<number>;
  close(): Promise<void>;
}
