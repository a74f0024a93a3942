import type {
  AttentionState,
  ClaimRecord,
  GateRecord,
  NewSession,
  SessionRecord,
  StateOwner,
  StateRecord,
} from '../types.js';

export interface SessionRow {
  id: string;
  label: string | null;
  agent: string | null;
  ticket: string | null;
  repo: string | null;
  worktree: string | null;
  cwd: string;
  host: string;
  boot_id: string;
  pid: number;
  start_time: string;
  command: string | null;
  created_at: number;
  last_seen_at: number;
  ended_at: number | null;
  end_reason: string | null;
  dead_seen_at: number | null;
  dead_why: string | null;
  attention: string | null;
  attention_at: number | null;
  attention_why: string | null;
  terminal: string | null;
  conversation?: string | null;
  conversation_pid?: number | null;
  parent_id?: string | null;
  task?: string | null;
  died?: string | null;
  setup_state?: string | null;
  env_slug?: string | null;
}

export interface ClaimRow {
  scope: string;
  kind: string;
  name: string;
  session_id: string;
  token: number;
  acquired_at: number;
}

/** A gate row; host..command are NULL while the gate is free (toGate is only called on held rows). */
export interface GateRow {
  name: string;
  token: number;
  session_id: string | null;
  host: string;
  boot_id: string;
  pid: number | null;
  start_time: string;
  command: string;
  acquired_at: number;
  lease_until: number;
}

export interface StateRow {
  session_id: string;
  value: string;
  version: number;
  updated_at: number;
}

/** What taking a gate returns: the new token and the session's state, read in the same statement. */
export interface Taken {
  token: number;
  s_value: string | null;
  s_version: number | null;
  s_updated: number | null;
  /** 1: the session is open, 2: ended, null: not in the store. */
  s_session: number | null;
}

/** The session's standing as a gate take read it (its s_session column). */
export function ownerFrom(t: Pick<Taken, 's_session'>, stateOf: string | null): StateOwner | null {
  if (stateOf === null) return null;
  const s = t.s_session === null ? null : Number(t.s_session);
  return s === 1 ? 'open' : s === 2 ? 'ended' : 'unknown';
}

export function toSession(r: SessionRow): SessionRecord {
  return {
    id: r.id,
    label: r.label,
    agent: r.agent,
    ticket: r.ticket,
    repo: r.repo,
    worktree: r.worktree,
    cwd: r.cwd,
    owner: { host: r.host, bootId: r.boot_id, pid: r.pid, startTime: r.start_time },
    command: r.command,
    createdAt: r.created_at,
    lastSeenAt: r.last_seen_at,
    endedAt: r.ended_at,
    endReason: r.end_reason,
    // PostgreSQL returns BIGINT as text unless told otherwise: compare as numbers.
    deadWhy:
      r.ended_at === null && r.dead_seen_at !== null && Number(r.dead_seen_at) === Number(r.last_seen_at)
        ? r.dead_why
        : null,
    attention:
      r.attention === null || r.attention === undefined || r.ended_at !== null
        ? null
        : { state: r.attention as AttentionState, at: Number(r.attention_at), why: r.attention_why },
    terminal: r.terminal ?? null,
    conversation: r.conversation ?? null,
    conversationPid:
      r.conversation_pid === null || r.conversation_pid === undefined ? null : Number(r.conversation_pid),
    parent: r.parent_id ?? null,
    task: r.task ?? null,
    died: r.died ?? null,
    setupState: (r.setup_state ?? null) as SessionRecord['setupState'],
    envSlug: r.env_slug ?? null,
  };
}

export function toClaim(r: ClaimRow): ClaimRecord {
  return {
    scope: r.scope,
    kind: r.kind,
    name: r.name,
    sessionId: r.session_id,
    token: r.token,
    acquiredAt: r.acquired_at,
  };
}

export function toGate(r: GateRow): GateRecord {
  return {
    name: r.name,
    token: r.token,
    sessionId: r.session_id,
    owner: { host: r.host, bootId: r.boot_id, pid: r.pid ?? 0, startTime: r.start_time },
    command: r.command,
    acquiredAt: r.acquired_at,
    leaseUntil: r.lease_until,
  };
}

export function toState(r: StateRow): StateRecord {
  return { sessionId: r.session_id, value: r.value, version: r.version, updatedAt: r.updated_at };
}

/** The state read along with a gate (null when no session's state was asked for, or it has none). */
export function stateFrom(t: Omit<Taken, 'token'>, stateOf: string | null): StateRecord | null {
  return stateOf !== null && t.s_value !== null
    ? { sessionId: stateOf, value: t.s_value, version: Number(t.s_version ?? 0), updatedAt: Number(t.s_updated ?? 0) }
    : null;
}

/** The columns every session insert writes, in this order (SESSION_COLUMNS). */
export const SESSION_COLUMNS =
  'id, label, agent, ticket, repo, worktree, cwd, host, boot_id, pid, start_time, command, parent_id, task';

export function sessionValues(s: NewSession): (string | number | null)[] {
  return [
    s.id,
    s.label,
    s.agent,
    s.ticket,
    s.repo,
    s.worktree,
    s.cwd,
    s.owner.host,
    s.owner.bootId,
    s.owner.pid,
    s.owner.startTime,
    s.command,
    s.parent ?? null,
    s.task ?? null,
  ];
}

/** A dumped session's columns: SESSION_COLUMNS, then created_at, last_seen_at, ended_at, end_reason, conversation, conversation_pid, died, setup_state, env_slug. */
export function dumpedSessionValues(s: SessionRecord): (string | number | null)[] {
  return [
    ...sessionValues(s),
    s.createdAt,
    s.lastSeenAt,
    s.endedAt,
    s.endReason,
    s.conversation ?? null,
    s.conversationPid ?? null,
    s.died ?? null,
    s.setupState ?? null,
    s.envSlug ?? null,
  ];
}

/** Whether an open session still has the owner and last-seen time it was judged with. */
export function unchanged(s: SessionRecord, since: { lastSeenAt: number; owner: SessionRecord['owner'] }): boolean {
  const [a, b] = [s.owner, since.owner];
  return (
    s.endedAt === null &&
    s.lastSeenAt === since.lastSeenAt &&
    a.host === b.host &&
    a.bootId === b.bootId &&
    a.pid === b.pid &&
    a.startTime === b.startTime
  );
}
