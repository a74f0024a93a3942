// The sessions part of the library's public shape (lanes-api.ts): start, find, list, end.
import type { Spend } from './spend/spend.js';
import type { BudgetView } from './spend/budget-facade.js';
import type { WatchLook } from './sessions/watch.js';
import type { ActingSession } from './sessions/acting.js';
import type { StartedSession, StartWithWorktree } from './sessions/start-session.js';
import type { ClaimRecord, SessionRecord } from '../store/types.js';
import type { SessionState } from '../core/liveness.js';
import type { EndOptions, EndResult } from './sessions/end-session.js';
import type { SessionGlance } from './sessions/glance.js';
import type { SessionProgress } from './worktrees/progress.js';
import type { SessionDiff } from './worktrees/session-diff.js';
import type { Told } from './tell/facade.js';
import type { AttachOptions, SessionRow, SessionView } from './sessions/sessions.js';
import type { CreatedWorktree } from './worktrees/worktrees.js';
import type { TeardownOutcome } from './sessions/setup.js';
import type { Predecessor } from './sessions/predecessor.js';

export interface LanesSessions {
  /**
   * Registers a session owned by process `pid` (live exactly while it runs). With `ticket`, claims
   * ticket:T in the same transaction, all or nothing (E_CLAIM_HELD naming the live holder, nothing
   * registered), or with `join` registers beside the holder (journaled, flagged as shared). With
   * `newWorktree`, in a worktree of its own made for it (removed again when the start is refused).
   */
  start(options: StartWithWorktree): Promise<StartedSession & { worktreeMade: CreatedWorktree | null }>;
  /**
   * The last session of a ticket in this repository when it is not live, with what it left (a kept
   * worktree, uncommitted files, a branch ahead, a snapshot); null when none, or it is live.
   */
  predecessor(ticket: string): Promise<Predecessor | null>;
  /** What a dead or ended session left (its worktree if there, uncommitted files, branch, last snapshot). */
  left(name: string): Promise<Predecessor>;
  /**
   * A session's work against where its branch left the main branch (their merge-base), committed and
   * uncommitted (untracked files as added), read without touching any index; from its branch (and
   * last snapshot) when its worktree is gone. With `patch`, each file's hunks.
   */
  diff(name: string, options?: { patch?: boolean }): Promise<SessionDiff>;
  /**
   * A person's message to a session's agent (lanes tell): journaled, then delivered through the
   * agent's hooks at its next call that reaches its model (as context), and journaled as delivered.
   * E_SESSION_ENDED for an ended session; a session of another host is told there (E_USAGE).
   */
  tell(name: string, message: string): Promise<Told>;
  /** Every message told to a session, oldest first, each delivered (when, through which hook) or pending. */
  told(name: string): Promise<Told[]>;
  /** Records message `seq` to `session` as delivered another way (`via`: typed into its idle tmux pane). */
  delivered(session: string, seq: number, via: string): Promise<void>;
  /** The predecessor's worktree to go on in: as it is, or made again on its branch with its last snapshot put back. */
  resumeWorktree(p: Predecessor): Promise<{ path: string; notes: string[] }>;
  /**
   * Which session acts for the process `from` (default: this one's parent) now: $LANES_SESSION
   * (or `env`) when live and no nearer ancestor owns one, else the nearest ancestor's live session.
   * The rule openLanes() applies once; the MCP server asks again on every tool call.
   */
  acting(options?: { from?: number; env?: string | null }): Promise<ActingSession | null>;
  /** Registers an agent's session under a fixed id, or re-attaches it to a new owner (resume, compact). */
  attach(options: AttachOptions): Promise<{ session: SessionRecord; created: boolean; reopened: boolean }>;
  /** Says where a live session runs (`tmux NAME`, `background LOGFILE`: lanes new); null when unknown or ended. */
  setTerminal(id: string, terminal: string): Promise<SessionRecord | null>;
  /**
   * The one way a session ends (lanes end, `start -- CMD` exiting, the agents' session-end hook,
   * doctor --fix): its uncommitted work is snapshotted first, then the session ends and releases
   * every claim in one transaction; optionally its worktree goes (never unsaved work).
   */
  end(id: string, options?: EndOptions | string): Promise<EndResult>;
  /** The session this object acts as, with a clear error when unset, unknown or ended. */
  current(): Promise<SessionView>;
  get(id: string): Promise<SessionView>;
  /** The named session (any state), or without a name the current one. */
  resolve(id?: string | null): Promise<SessionView>;
  /** Sessions not ended (dead ones included); every session with `all`. */
  list(options?: { all?: boolean }): Promise<SessionView[]>;
  /**
   * As list(), with at most `claimsShown` claims each (the first as a person reads them: ticket,
   * paths, branch, other kinds, ports; core/resource.ts claimRank) and each one's
   * count: claims are counted, not read whole (`lanes ls --all`).
   */
  rows(options: { all?: boolean; claimsShown: number }): Promise<SessionRow[]>;
  /**
   * As rows(), a page at a time (default 500 rows): in creation order, or with `nest` each
   * subagent's session right under its parent's (`depth`). What is held is the listing's order
   * and one page, for a listing of any length (`lanes ls --all` reads them twice: to measure the
   * table, then to draw it).
   */
  rowPages(options: {
    all?: boolean;
    claimsShown: number;
    nest?: boolean;
    size?: number;
  }): AsyncGenerator<{ row: SessionRow; depth: number }[]>;
  /** A session's claims a page at a time (default 1,000), in key order. */
  claimPages(id: string, size?: number): AsyncGenerator<ClaimRecord[]>;
  /** A live session at a glance (claims, other live sessions, overlapping edits), from the store alone; null when unknown or ended. */
  glance(id: string): Promise<SessionGlance | null>;
  /**
   * `lanes ls`'s default view: live sessions and the dead ones still holding claims or unsaved
   * work (a dirty worktree no live session shares), at most `deadShown` of those (default 50;
   * `moreDead` counts the rest); `hidden` counts the other dead ones. Each with at most
   * `claimsShown` claims (default: all) and its count.
   */
  overview(options?: {
    deadShown?: number;
    claimsShown?: number;
  }): Promise<{ sessions: SessionRow[]; hidden: number; moreDead: number }>;
  /**
   * Proves these sessions' liveness again, as list() does (one read of process facts for this
   * host's owners, other hosts' leases against the store's clock `now`, read when not given); a
   * session found dead is recorded (once, as any judge records it). For a watcher that keeps the
   * sessions it read and proves only the live ones again instead of reading every session.
   */
  judge(sessions: SessionRecord[], now?: number): Promise<Map<string, { state: SessionState; why: string }>>;
  /** Branch, uncommitted files and commits ahead of the main branch, for the sessions given that have a worktree on this host. */
  progress(ids: string[]): Promise<SessionProgress[]>;
  /**
   * One look of the per-host watcher (`lanes watch`): this host's open sessions proven alive again
   * (a death recorded, journaled and told), and on a team store their leases renewed while their
   * owners live.
   */
  watch(): Promise<WatchLook>;
  /**
   * What each session spent: tokens from its agent's own record (Claude Code's transcript, Codex's
   * rollout; read incrementally), a cost estimate from the price table ($LANES_HOME/prices.json over
   * lanes' own), its wall time; and the total.
   */
  spend(sessions: SessionRecord[], now?: number): Promise<Spend>;
  /** A session's budget (user config [budget.session], its run's --budget, as raised), what it spent, whether it is paused. */
  budgetOf(name: string): Promise<BudgetView>;
  /** Lets a session paused by its budget go on: each hard limit it reached is raised by its own size again (journaled). */
  continue(name: string): Promise<BudgetView>;
  /** Raises (or sets) a session's hard limits, `usd=20,tokens=5M` (journaled); a pause they now allow is lifted. */
  raiseBudget(name: string, spec: string): Promise<BudgetView>;
  /** The sessions whose `[session] teardown` is due: failed, or killed while it ran (setup state failed or tearing), and live ones done. */
  teardownsDue(): Promise<SessionRecord[]>;
  /**
   * Runs a session's `[session] teardown` again (`lanes teardown S`): one whose teardown failed or
   * was killed while it ran, or an ended one whose teardown is still due. Null: nothing was due.
   */
  teardown(id: string): Promise<TeardownOutcome | null>;
}
