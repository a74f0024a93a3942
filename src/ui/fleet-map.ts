// From the library's records to what the page shows (view-types.ts): plain data, no behaviour.
import { basename, dirname } from 'node:path';
import { describeEntry, formatResource, shellWord } from '../index.js';
import type { ConflictReport, SessionProgress, SessionView, Snapshot, WaitView } from '../index.js';
import { timesIn } from '../core/times-in.js';
import type { UiConflicts, UiJournalEntry, UiSession, UiSnapshot, UiTime, UiWait } from './view-types.js';

/** A short name for a repository id (its git common dir): `/src/shop/.git` is `shop`. */
export function repoName(repo: string | null, cwd = ''): string {
  if (!repo) return cwd ? `(no repository) ${basename(cwd)}` : '(no repository)';
  const dir = basename(repo) === '.git' ? dirname(repo) : repo.replace(/\.git$/, '');
  return basename(dir) || repo;
}

export function toUiSession(s: SessionView, progress: SessionProgress | undefined): UiSession {
  return {
    id: s.id,
    state: s.state,
    why: s.why,
    agent: s.agent,
    ticket: s.ticket,
    label: s.label,
    host: s.owner.host,
    pid: s.owner.pid,
    repo: s.repo,
    repoName: repoName(s.repo, s.cwd),
    worktree: s.worktree,
    command: s.command,
    branch: progress?.branch ?? null,
    uncommitted: progress?.uncommitted ?? null,
    ahead: progress?.ahead ?? null,
    target: progress?.target ?? null,
    claims: s.claims.map((c) => ({ resource: formatResource(c), token: c.token, since: c.acquiredAt })),
    createdAt: s.createdAt,
    lastSeenAt: s.lastSeenAt,
    endedAt: s.endedAt,
    endReason: s.endReason,
    attention: s.state === 'live' && s.attention ? withTimes(s.attention, s.attention.why ?? '', s.attention.at) : null,
    terminal: s.terminal,
    parent: s.parent,
    task: s.task,
    died: s.died,
  };
}

/** `value` with the moments `text` names (core/times-in.ts), when it names any. */
function withTimes<T extends object>(value: T, text: string, at: number): T & { times?: UiTime[] } {
  const times = timesIn(text, at);
  return times.length ? { ...value, times } : value;
}

export function toUiWait(w: WaitView): UiWait {
  return {
    session: w.wait.sessionId,
    live: w.live,
    since: w.wait.since,
    resources: w.wait.resources.map(formatResource),
    heldBy: w.heldBy.map((h) => ({ resource: formatResource(h.claim), session: h.claim.sessionId, state: h.state })),
  };
}

export function toUiConflicts(
  repo: string,
  report: ConflictReport | null,
  error: string | null,
  at: number,
): UiConflicts {
  return {
    repo,
    repoName: repoName(repo),
    target: report?.target ?? null,
    pairs: (report?.pairs ?? []).map((p) => ({ a: p.a, b: p.b, both: p.both, conflicts: p.conflicts })),
    sameTicket: report?.sameTicket ?? [],
    competing: (report?.competing ?? []).map((c) => ({ session: c.session, target: c.target, files: c.files })),
    error,
    at,
  };
}

/** A snapshot with the command that restores it (`lanes restore OWNER/N`, inside the repository). */
export function toUiSnapshot(repo: string, where: string, s: Snapshot): UiSnapshot {
  return {
    repo,
    repoName: repoName(repo),
    owner: s.owner,
    n: s.n,
    ref: s.ref,
    time: s.time,
    subject: s.subject,
    restore: `cd ${shellWord(where)} && lanes restore ${shellWord(`${s.owner}/${s.n}`)}`,
  };
}

export function toUiJournal(e: Omit<UiJournalEntry, 'text' | 'times'>): UiJournalEntry {
  const text = describeEntry(e as Parameters<typeof describeEntry>[0]);
  return withTimes(
    {
      seq: e.seq,
      at: e.at,
      session: e.session,
      repo: e.repo,
      ticket: e.ticket,
      host: e.host,
      kind: e.kind,
      subject: e.subject,
      details: e.details,
      text,
      ...(e.unreadable ? { unreadable: e.unreadable } : {}),
    },
    text,
    e.at,
  );
}
