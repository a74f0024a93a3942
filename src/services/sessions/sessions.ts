import { LanesError, isLanesError } from '../../core/errors.js';
import { assertSessionId, newSessionId } from '../../core/ids.js';
import { assertCanJudge } from '../../core/platform/select.js';
import { identityOf } from '../../core/process-identity.js';
import type { OwnerIdentity } from '../../core/process-identity.js';
import { repoInfo } from '../../git/repo.js';
import type { ClaimRecord, DeadMark, NewSession, SessionRecord } from '../../store/types.js';
import { unknownSession } from '../context.js';
import type { SessionView } from './listing.js';
import type { LanesContext, SessionLiveness } from '../context.js';

export interface StartOptions {
  /** Explicit id (agent adapters use `AGENT:<their id>`); a random `s-…` id otherwise. */
  id?: string;
  label?: string | null;
  agent?: string | null;
  ticket?: string | null;
  /** The owning process; the session is live exactly while it runs. */
  pid: number;
  command?: string | null;
  /** A worktree made for this session (lanes start --worktree): its root becomes the session's worktree and cwd. */
  worktree?: string;
  /** The session this one is made for (a subagent's worktree session: its parent's). */
  parent?: string | null;
  /** The task the agent is started with (lanes new --prompt). */
  task?: string | null;
  /**
   * With `ticket`: register beside the live session holding `ticket:T` instead of being refused;
   * the ticket is not claimed, and both are flagged as sharing it (journaled as session.join).
   */
  join?: boolean;
}

export interface AttachOptions {
  /** The session's fixed id (agents: `AGENT:<their session id>`). */
  id: string;
  agent: string | null;
  /** The working directory the agent reported. */
  cwd: string;
  /** The owning process (the agent); the session is live exactly while it runs. */
  pid: number;
}

export type { SessionRow, SessionView } from './listing.js';

function checkText(what: string, value: string | null | undefined): string | null {
  if (value === undefined || value === null) return null;
  if (value.length === 0 || value.length > 200 || /[\u0000-\u001f\u007f]/.test(value)) {
    throw new LanesError(
      'E_USAGE',
      `--${what} must be 1-200 printable characters, got ${JSON.stringify(value.slice(0, 40))}`,
      {
        hint:
          value.length === 0
            ? `give --${what} a value, or leave it out`
            : value.length > 200
              ? `pass a shorter --${what} (at most 200 characters)`
              : `pass --${what} without control characters (newlines, tabs, escapes)`,
      },
    );
  }
  return value;
}

/**
 * The identity a new session is owned by. When the owner cannot be read, first make sure lanes can
 * read process facts on this OS at all (else E_PLATFORM naming the OS and what it cannot read, never
 * a session whose liveness nobody can prove), then blame the pid.
 */
function ownerOf(pid: number, hint: string): OwnerIdentity {
  let owner: OwnerIdentity | null = null;
  try {
    owner = identityOf(pid);
  } catch (e) {
    if (!isLanesError(e, 'E_PLATFORM')) throw e;
  }
  if (!owner || owner.bootId === 'unknown-boot') assertCanJudge();
  if (!owner) throw new LanesError('E_USAGE', `pid ${pid} is not a running process on this host`, { hint });
  return owner;
}

export class SessionService {
  constructor(private readonly ctx: LanesContext) {}

  async start(options: StartOptions): Promise<SessionRecord> {
    return this.ctx.store.insertSession(await this.record(options));
  }

  /** The record of a new session (its owner proven, its texts checked); start-session.ts inserts it. */
  async record(options: StartOptions): Promise<NewSession> {
    const owner = ownerOf(options.pid, 'pass the pid of the process that owns the session (--pid), or omit --pid');
    const repo = await this.ctx.repo();
    return {
      id: options.id === undefined ? newSessionId() : assertSessionId(options.id),
      label: checkText('label', options.label),
      agent: checkText('agent', options.agent),
      ticket: checkText('ticket', options.ticket),
      repo: repo ? this.ctx.repoId(repo) : null,
      worktree: options.worktree ?? repo?.worktreeRoot ?? null,
      cwd: options.worktree ?? this.ctx.cwd,
      owner,
      command: options.command ?? null,
      parent: options.parent ?? null,
      task: options.task ?? null,
    };
  }

  /**
   * Registers `id` owned by `pid`, or re-attaches it to that owner (an agent's resume, clear or
   * compact reuses its session id); a re-attach keeps the ticket and reopens an ended session.
   */
  async attach(options: AttachOptions): Promise<{ session: SessionRecord; created: boolean; reopened: boolean }> {
    const owner = ownerOf(options.pid, 'attach a session to a running process');
    // The agent's directory decides the repository (the object may have been opened elsewhere).
    const repo = options.cwd === this.ctx.cwd ? await this.ctx.repo() : await repoInfo(options.cwd);
    return this.ctx.store.attachSession({
      id: assertSessionId(options.id),
      label: null,
      agent: checkText('agent', options.agent),
      ticket: null,
      repo: repo ? this.ctx.repoId(repo) : null,
      worktree: repo?.worktreeRoot ?? null,
      cwd: options.cwd,
      owner,
      command: null,
    });
  }

  /**
   * The record of a session, or null when the store does not know it (no liveness judged). An
   * agent's own session id (`<agent>:<id>`) bound to a lanes run is that run's session.
   */
  async find(id: string): Promise<SessionRecord | null> {
    return (await this.ctx.store.getSession(assertSessionId(id))) ?? (await this.bound(id));
  }

  /** The open run session an agent's own session id (`<agent>:<id>`) is bound to, or null. */
  bound(id: string): Promise<SessionRecord | null> {
    return id.includes(':') ? this.ctx.store.sessionByConversation(id) : Promise.resolve(null);
  }

  /**
   * One agent, one session: binds the agent's own session `conversation` (of agent process `pid`)
   * to `run`, the open session of the lanes run it was started in, so its hooks act as the run's
   * session. Refused (null: the agent registers a session of its own, as outside a run) for another
   * kind of agent than the run's, and while another agent process that bound the run still runs
   * (an agent the run's agent started itself is a session of its own); the same process binding
   * again (a /clear, a resume) or a successor after the first one exited is bound.
   */
  async bindRun(
    run: SessionRecord,
    o: { conversation: string; agent: string | null; pid: number },
  ): Promise<SessionRecord | null> {
    if (run.endedAt !== null) return null;
    if (run.agent && o.agent && run.agent !== o.agent) return null;
    if (run.conversation === o.conversation) return run;
    const other = run.conversation && run.conversationPid !== null && run.conversationPid !== o.pid;
    if (other && identityOf(run.conversationPid as number) !== null) return null;
    return this.ctx.store.bindConversation(run.id, { ...o, expected: run.conversation });
  }

  /** The session this process acts as ($LANES_SESSION), with a clear error when unset, unknown or ended. */
  async current(): Promise<SessionView> {
    const s = await this.ctx.requireSession();
    return this.view(s, await this.ctx.store.listClaims({ sessionId: s.id }));
  }

  /** A session by its id or a name (its label, ticket or tmux name: named.ts), in any state. */
  async get(name: string): Promise<SessionView> {
    const s = await (await import('./named.js')).sessionNamed(this.ctx, name);
    return this.view(s, await this.ctx.store.listClaims({ sessionId: s.id }));
  }

  /** The named session (any state), or without a name the one this process acts as. */
  resolve(id?: string | null): Promise<SessionView> {
    return id ? this.get(id) : this.current();
  }

  private async view(s: SessionRecord, claims: ClaimRecord[]): Promise<SessionView> {
    return toView(s, await this.ctx.stateOf(s), claims);
  }

  /**
   * The store half of ending: ends the session and releases every claim it holds, in one
   * transaction. Callers end sessions through end-session.ts (snapshot first), never this alone.
   */
  async endRecord(
    id: string,
    reason = 'ended by lanes end',
    unchangedSince?: Pick<DeadMark, 'lastSeenAt' | 'owner'>,
  ): Promise<{ session: SessionRecord; released: ClaimRecord[]; alreadyEnded: boolean; changed: boolean }> {
    assertSessionId(id);
    const before = await this.ctx.store.getSession(id);
    const result = await this.ctx.store.endSession(id, reason, unchangedSince);
    if (!before || !result) throw unknownSession(id, this.ctx.store.info.location);
    return {
      session: result.session,
      released: result.released,
      alreadyEnded: before.endedAt !== null,
      changed: result.changed === true,
    };
  }

  /**
   * Refreshes the session's lease; every lanes call made by a session does this. With `freshForMs`,
   * a lease refreshed that recently is left alone (no write: see SessionStore.touchSession).
   */
  async heartbeat(freshForMs?: number, activity?: boolean): Promise<boolean> {
    if (!this.ctx.sessionId) return false;
    return this.ctx.store.touchSession(this.ctx.sessionId, freshForMs, activity);
  }
}

function toView(s: SessionRecord, live: SessionLiveness, claims: ClaimRecord[]): SessionView {
  return { ...s, state: live.state, why: live.verdict.why, claims };
}
