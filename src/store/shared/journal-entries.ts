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

/** A journal row as the driver gives it: typed as written, though a damaged row may hold anything. */
export interface JournalRow {
  seq: number;
  at: unknown;
  session_id: unknown;
  repo: unknown;
  ticket: unknown;
  host: unknown;
  kind: unknown;
  subject: unknown;
  details: unknown;
}

/** The repository of a claim scope (`repo:<id>`), as sessions name it; null for a machine scope. */
export function repoOfScope(scope: string | undefined): string | null {
  return scope?.startsWith('repo:') ? scope.slice(5) : null;
}

/** The longest subject a reader is handed: past it, a damaged (or hostile) row is cut and says so. */
export const SUBJECT_MAX = 4096;

const preview = (v: unknown): string => {
  const text =
    typeof v === 'string' ? v : v instanceof Uint8Array ? `${v.length} bytes` : (JSON.stringify(v) ?? String(v));
  return text.length > 40 ? `${JSON.stringify(text.slice(0, 40))}…` : JSON.stringify(text);
};
const kindOf = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'an array' : v instanceof Uint8Array ? 'bytes' : `a ${typeof v}`;

/**
 * A journal row as readers get it. A row lanes cannot read whole (details that are no JSON object,
 * a wrong type, an oversized subject: a manual fix, another version's writer, disk damage) never
 * blinds a reader: it is handed on with what could be read and `unreadable` saying what is wrong.
 * `detailsText`: the store keeps details as text (SQLite), not parsed (PostgreSQL's JSONB).
 */
export function toEntry(row: JournalRow, detailsText: boolean): JournalEntry {
  const wrong: string[] = [];
  let details: Record<string, unknown> = {};
  let raw: unknown = row.details;
  let parsed = true;
  if (detailsText) {
    if (typeof raw !== 'string') {
      wrong.push(`details are ${kindOf(raw)}, not text`);
      parsed = false;
    } else
      try {
        raw = JSON.parse(raw);
      } catch {
        wrong.push(`details are not JSON (${preview(raw)})`);
        parsed = false;
      }
  }
  if (parsed) {
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
      wrong.push(`details are ${kindOf(raw)} (${preview(raw)}), not a JSON object`);
    else details = raw as Record<string, unknown>;
  }
  let at =
    typeof row.at === 'number' || typeof row.at === 'bigint' || typeof row.at === 'string' ? Number(row.at) : NaN;
  if (!Number.isFinite(at)) {
    wrong.push(`its time is ${preview(row.at)}`);
    at = 0;
  }
  const text = (name: string, v: unknown): string => {
    if (typeof v === 'string') return v;
    wrong.push(`${name} is ${kindOf(v)}`);
    return v instanceof Uint8Array ? Buffer.from(v).toString('utf8') : String(v);
  };
  const orNull = (name: string, v: unknown): string | null => {
    if (v === null || typeof v === 'string') return v;
    wrong.push(`${name} is ${kindOf(v)}`);
    return null;
  };
  let subject = text('subject', row.subject);
  if (subject.length > SUBJECT_MAX) {
    wrong.push(`its subject is ${subject.length} characters long (cut)`);
    subject = `${subject.slice(0, SUBJECT_MAX)}…`;
  }
  return {
    seq: Number(row.seq),
    at,
    session: orNull('session', row.session_id),
    repo: orNull('repo', row.repo),
    ticket: orNull('ticket', row.ticket),
    host: text('host', row.host),
    kind: text('kind', row.kind) as JournalKind,
    subject,
    details,
    ...(wrong.length ? { unreadable: wrong.join('; ') } : {}),
  };
}

/** A row of SQLite's journal (details kept as text). */
export const fromTextRow = (row: JournalRow): JournalEntry => toEntry(row, true);
/** A row of PostgreSQL's journal (details JSONB, parsed by the driver). */
export const fromJsonRow = (row: JournalRow): JournalEntry => toEntry(row, false);

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
