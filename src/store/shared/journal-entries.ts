import { formatResource } from '../../core/resource.js';
import type { ResourceRef } from '../../core/resource.js';
import { JOURNAL_KINDS } from '../journal-types.js';
import type { JournalEntry, JournalInput, JournalKind, JournalQuery } from '../journal-types.js';
import type { ClaimRecord, Grant, SessionRecord } from '../types.js';
import { hostId } from '../../core/process-identity.js';

/** Decisions as the store writes them: its clock and this host, every field present. */
export function stamped(entries: JournalInput[], now: number): Omit<JournalEntry, 'seq'>[] {
  const host = hostId();
  return entries.map((e) => ({
    at: now,
    session: e.session ?? null,
    repo: e.repo ?? null,
    ticket: e.ticket ?? null,
    host,
    kind: e.kind,
    subject: e.subject,
    details: e.details ?? {},
  }));
}

// The journal entries the stores write themselves, inside the transaction of the decision they
// record (a session started or ended, a claim granted, taken over or released), built the same way
// by both backends.

export interface JournalRow {
  seq: number;
  at: number;
  session_id: string | null;
  repo: string | null;
  ticket: string | null;
  host: string;
  kind: string;
  subject: string;
  details: string | Record<string, unknown>;
}

/** The repository of a claim scope (`repo:<id>`), as sessions name it; null for a machine scope. */
export function repoOfScope(scope: string | undefined): string | null {
  return scope?.startsWith('repo:') ? scope.slice(5) : null;
}

export function toEntry(row: JournalRow): JournalEntry {
  return {
    seq: Number(row.seq),
    at: Number(row.at),
    session: row.session_id,
    repo: row.repo,
    ticket: row.ticket,
    host: row.host,
    kind: row.kind as JournalKind,
    subject: row.subject,
    details: typeof row.details === 'string' ? (JSON.parse(row.details) as Record<string, unknown>) : row.details,
  };
}

export function sessionStarted(
  s: SessionRecord,
  kind: 'session.start' | 'session.attach' = 'session.start',
  reopened = false,
): JournalInput {
  return {
    kind,
    subject: s.id,
    session: s.id,
    repo: s.repo,
    ticket: s.ticket,
    details: {
      agent: s.agent,
      label: s.label,
      worktree: s.worktree,
      pid: s.owner.pid,
      ...(reopened ? { reopened: true } : {}),
      // The task the agent was started with (lanes new --prompt): its start, the whole in the session's record.
      ...(s.task
        ? { task: s.task.length > 1000 ? `${s.task.slice(0, 1000)}…` : s.task, taskChars: s.task.length }
        : {}),
      ...(s.parent ? { parent: s.parent } : {}),
    },
  };
}

/** The agent's own session bound to a run lanes launched: its hooks act as the run's session from now on. */
export function conversationBound(s: SessionRecord, conversation: string, before: string | null): JournalInput {
  return {
    kind: 'session.attach',
    subject: s.id,
    session: s.id,
    repo: s.repo,
    ticket: s.ticket,
    details: { agent: s.agent, conversation, ...(before ? { before } : {}), pid: s.owner.pid },
  };
}

/**
 * A death: the session's owner proven gone while it was open (a judge), or its agent killed or
 * crashed under lanes' wrapper (`how`: "owner gone: …", "killed by SIGKILL", "exited with code 1").
 * The morning report reads deaths from these, whatever ended the session later.
 */
export function sessionDied(s: SessionRecord, how: string, extra: Record<string, unknown> = {}): JournalInput {
  return {
    kind: 'session.died',
    subject: s.id,
    session: s.id,
    repo: s.repo,
    ticket: s.ticket,
    details: {
      how,
      agent: s.agent,
      label: s.label,
      pid: s.owner.pid,
      host: s.owner.host,
      worktree: s.worktree,
      terminal: s.terminal,
      ...(s.parent ? { parent: s.parent } : {}),
      ...extra,
    },
  };
}

export function sessionEnded(s: SessionRecord, reason: string, released: ClaimRecord[]): JournalInput {
  return {
    kind: 'session.end',
    subject: s.id,
    session: s.id,
    repo: s.repo,
    ticket: s.ticket,
    details: { reason, released: released.map((c) => ({ resource: formatResource(c), token: c.token })) },
  };
}

/**
 * A grant's entry. Its ticket: the session's, or for a session without one the ticket claimed in
 * the same request (the session takes it right after: services/claims/claims.ts).
 */
export function granted(
  me: SessionRecord | null,
  sessionId: string,
  grant: Grant,
  wanted: ResourceRef[] = [],
): JournalInput {
  const ticket = me?.ticket ?? wanted.find((w) => w.kind === 'ticket')?.name ?? null;
  const base = { subject: formatResource(grant.ref), session: sessionId, repo: repoOfScope(grant.ref.scope), ticket };
  if (!grant.takenOver) return { ...base, kind: 'claim.grant', details: { token: grant.token } };
  const old = grant.takenOver.claim;
  return {
    ...base,
    kind: 'claim.takeover',
    details: {
      token: grant.token,
      oldHolder: old.sessionId,
      oldResource: formatResource(old),
      oldToken: old.token,
      why: grant.takenOver.why,
    },
  };
}

export function released(sessionId: string, ticket: string | null, claim: ClaimRecord): JournalInput {
  return {
    kind: 'claim.release',
    subject: formatResource(claim),
    session: sessionId,
    repo: repoOfScope(claim.scope),
    ticket,
    details: { token: claim.token },
  };
}

export function grantsOf(wanted: ResourceRef[], tokens: number[]): Grant[] {
  return wanted.map((ref, i) => ({ ref, token: Number(tokens[i]) }));
}

/** A kind filter (`claim` = every `claim.*`) as the exact kinds it names; unknown names are an error for the caller. */
export function expandKinds(kinds: string[]): { kinds: JournalKind[]; unknown: string[] } {
  const out = new Set<JournalKind>();
  const unknown: string[] = [];
  for (const k of kinds) {
    const matched = JOURNAL_KINDS.filter((j) => j === k || j.startsWith(`${k}.`));
    if (matched.length === 0) unknown.push(k);
    for (const m of matched) out.add(m);
  }
  return { kinds: [...out], unknown };
}

export const DEFAULT_JOURNAL_LIMIT = 1000;

/** The query's WHERE clause with placeholders made by `ph` (SQLite `?`, PostgreSQL `$n`). */
export function journalWhere(q: JournalQuery, ph: (value: unknown) => string): string {
  const where: string[] = [];
  if (q.afterSeq !== undefined) where.push(`seq > ${ph(q.afterSeq)}`);
  if (q.since !== undefined) where.push(`at >= ${ph(q.since)}`);
  if (q.session !== undefined) where.push(`session_id = ${ph(q.session)}`);
  if (q.ticket !== undefined) where.push(`ticket = ${ph(q.ticket)}`);
  if (q.repo !== undefined) where.push(`repo = ${ph(q.repo)}`);
  if (q.kinds !== undefined) {
    const { kinds } = expandKinds(q.kinds);
    where.push(kinds.length ? `kind IN (${kinds.map((k) => ph(k)).join(', ')})` : '1 = 0');
  }
  return where.length ? `WHERE ${where.join(' AND ')}` : '';
}
