import { JournalService } from './journal/journal.js';
import { LanesError } from '../core/errors.js';
import { assertSessionId } from '../core/ids.js';
import { judgeOwners } from '../core/liveness.js';
import type { SessionState, Verdict } from '../core/liveness.js';
import { platform } from '../core/platform/select.js';
import type { ProcessFacts } from '../core/platform/types.js';
import { bootId, hostId } from '../core/process-identity.js';
import type { OwnerIdentity } from '../core/process-identity.js';
import { repoInfo } from '../git/repo.js';
import { originIdentity } from '../git/repo-id.js';
import type { RepoInfo } from '../git/repo.js';
import type { DeadMark, OwnerJudge, SessionRecord, Store } from '../store/types.js';

export type Notice = (message: string) => void;

export interface SessionLiveness {
  state: SessionState;
  verdict: Verdict;
}

/** The one "unknown session" error (the store, its location, and how to look). */
export function unknownSession(id: string, location: string, hint = 'list sessions with `lanes ls --all`'): LanesError {
  return new LanesError('E_UNKNOWN_SESSION', `session ${id} is not known to the store ${location}`, {
    hint,
    details: { session: id },
  });
}

/** The one "session has ended" error (why it ended, when known, and what to do instead). */
export function sessionEnded(id: string, why: string, hint = 'start a new session with `lanes start`'): LanesError {
  return new LanesError('E_SESSION_ENDED', `session ${id} has ended (${why})`, { hint, details: { session: id } });
}

/** Everything a service needs, built once per openLanes(). */
export class LanesContext {
  readonly host = hostId();
  readonly bootId = bootId();
  readonly judge: OwnerJudge;
  /** Where services record the decisions they make outside the store (journal.ts). */
  readonly journal: JournalService = new JournalService(this);
  private repoPromise: Promise<RepoInfo | null> | undefined;
  private selfIdentity: OwnerIdentity | undefined;

  constructor(
    readonly store: Store,
    /** Where the store is, as resolved (what a detached helper such as `lanes notify deliver` opens). */
    readonly location: string,
    readonly cwd: string,
    readonly env: Record<string, string | undefined>,
    /** Set once by openLanes() when it finds the acting session (sessions/acting.ts). */
    public sessionId: string | null,
    /** Lease of a session on another host: last heartbeat + leaseMs on the store's clock. */
    readonly leaseMs: number,
    /** Lease of a gate held from another host, renewed by its holder while it works. */
    readonly gateLeaseMs: number,
    readonly notice: Notice,
  ) {
    this.judge = (owners, nowMs) =>
      judgeOwners(owners, {
        host: this.host,
        bootId: this.bootId,
        // An OS lanes cannot judge has no local process facts (and `lanes start` refuses it).
        probe: (pids) => platform()?.facts(pids) ?? new Map(),
        nowMs,
        leaseMs: this.leaseMs,
        visibleSince: platform()?.visibleSince?.() ?? null,
      });
  }

  repo(): Promise<RepoInfo | null> {
    this.repoPromise ??= repoInfo(this.cwd);
    return this.repoPromise;
  }

  private readonly repoIds = new Map<string, string>();

  /**
   * The repository's identity in claim scopes and session records. On this machine's store it is
   * the git common dir; on a team store (PostgreSQL) the `origin` remote (git/repo-id.ts), which is
   * the same on every machine, else the common dir.
   */
  repoId(repo: RepoInfo): string {
    if (this.store.info.backend !== 'postgres') return repo.commonDir;
    let id = this.repoIds.get(repo.commonDir);
    if (id === undefined) {
      id = originIdentity(repo.commonDir) ?? repo.commonDir;
      this.repoIds.set(repo.commonDir, id);
    }
    return id;
  }

  private selfFacts: ProcessFacts | null | undefined;

  /** This process' facts with its command line, read once (one `ps` on macOS for both uses below). */
  private facts(): ProcessFacts | null {
    if (this.selfFacts === undefined) {
      try {
        this.selfFacts = platform()?.facts([process.pid], true).get(process.pid) ?? null;
      } catch {
        this.selfFacts = null;
      }
    }
    return this.selfFacts;
  }

  /** This process, as a gate holder. */
  self(): OwnerIdentity {
    this.selfIdentity ??= {
      host: this.host,
      bootId: this.bootId,
      pid: process.pid,
      startTime: this.facts()?.startTime ?? '',
    };
    return this.selfIdentity;
  }

  /** This process' command line (it is shown in other processes' wait notices). */
  selfCommand(): string {
    return this.facts()?.command.slice(0, 200) || process.argv.join(' ');
  }

  async stateOf(session: SessionRecord): Promise<SessionLiveness> {
    return (await this.statesOf([session])).get(session.id)!;
  }

  /**
   * Liveness of many sessions against ONE reading of the store's clock (not a query per session)
   * and one read of process facts (not a `ps` per session). A session found dead is recorded so
   * (once: the store keeps it until the session is refreshed), so no later call judges it again;
   * recording is best effort (a busy store only costs a re-judge). `nowMs`: the store's clock when
   * the caller has just read it (a lease is judged against it).
   */
  async statesOf(sessions: SessionRecord[], nowMs?: number): Promise<Map<string, SessionLiveness>> {
    const open = sessions.filter((s) => s.endedAt === null && s.deadWhy === null);
    const now = open.length === 0 ? 0 : (nowMs ?? (await this.store.now()));
    const verdicts = this.judge(
      open.map((s) => ({ owner: s.owner, lastSeenMs: s.lastSeenAt })),
      now,
    );
    const judged = new Map(open.map((s, i) => [s.id, verdicts[i]!]));
    const proven: DeadMark[] = [];
    const states = new Map(
      sessions.map((s): [string, SessionLiveness] => {
        if (s.endedAt !== null)
          return [s.id, { state: 'ended', verdict: { live: false, why: s.endReason ?? 'ended' } }];
        if (s.deadWhy !== null) return [s.id, { state: 'dead', verdict: { live: false, why: s.deadWhy } }];
        const verdict = judged.get(s.id)!;
        if (!verdict.live) proven.push({ id: s.id, lastSeenAt: s.lastSeenAt, owner: s.owner, why: verdict.why });
        return [s.id, { state: verdict.live ? 'live' : 'dead', verdict }];
      }),
    );
    if (proven.length > 0) await this.died(proven, sessions);
    return states;
  }

  /** Records the proven dead; those this call recorded (each death once, whoever judges) are notified. */
  private async died(proven: DeadMark[], sessions: SessionRecord[]): Promise<void> {
    const recorded = await this.store.recordDead(proven).catch(() => [] as string[]);
    if (recorded.length === 0) return;
    const now = await this.store.now().catch(() => Date.now());
    const { notifyLater } = await import('./notify/dispatch.js');
    const { notifyEventOf } = await import('./notify/events.js');
    const why = new Map(proven.map((p) => [p.id, p.why]));
    const events = sessions
      .filter((s) => recorded.includes(s.id))
      .map((s) => notifyEventOf('died', s, why.get(s.id) ?? null, now));
    await notifyLater(this, events);
  }

  /**
   * The sessions that are live right now (not ended, owner proven alive or lease current), among
   * those `which` keeps. Reads only the open sessions not yet recorded dead: its cost follows the
   * live sessions, not every session that ever died without ending.
   */
  async liveSessions(which: (s: SessionRecord) => boolean = () => true): Promise<SessionRecord[]> {
    const candidates = (await this.store.listSessions({ includeEnded: false, includeDead: false })).filter(which);
    const states = await this.statesOf(candidates);
    return candidates.filter((s) => states.get(s.id)?.state === 'live');
  }

  /** The id of the session this process acts as (LANES_SESSION or an explicit id), checked for form only. */
  sessionIdFor(explicit?: string | null): string {
    const id = explicit ?? this.sessionId;
    if (!id) {
      throw new LanesError(
        'E_NO_SESSION',
        'no session: LANES_SESSION is not set and no live session is owned by a process above this one',
        {
          hint: "in an agent, install lanes' hooks for it (`lanes hooks install AGENT`): they register the agent's session, which its shell commands then act as; in your own shell: export LANES_SESSION=$(lanes start --label NAME), or run your command under `lanes start -- CMD`",
        },
      );
    }
    return assertSessionId(id, explicit ? 'session id' : 'LANES_SESSION');
  }

  /** The session this process acts as (LANES_SESSION or an explicit id), checked against the store. */
  async requireSession(explicit?: string | null): Promise<SessionRecord> {
    const id = this.sessionIdFor(explicit);
    const session = await this.store.getSession(id);
    if (!session)
      throw unknownSession(
        id,
        this.store.info.location,
        'check LANES_SESSION / LANES_STORE, list sessions with `lanes ls --all`, or start a new one with `lanes start`',
      );
    if (session.endedAt !== null) {
      throw sessionEnded(id, session.endReason ?? 'no reason given');
    }
    return session;
  }
}
