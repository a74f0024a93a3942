import type { JournalEntry, JournalKind } from '../../store/journal-types.js';
import type { SessionRecord } from '../../store/types.js';
import type { Lanes } from '../lanes-api.js';
import type { SessionView } from '../sessions/sessions.js';
import { mainWorktreeOf } from '../../git/main-worktree.js';
import { shellWord } from '../../core/shell-quote.js';
import { timesIn } from '../../core/times-in.js';
import { named, needsYou } from './needs-you.js';
import { deathsOf, finishedOf, sessionName } from './deaths.js';
import { describeEntry } from '../journal/describe-entry.js';
import { addReviewAndSpend } from './morning.js';
import type { NightReport, ReportItem, SessionName, TicketReport } from './types.js';

export type { NightReport, NeedsYou, ReportItem, ReviewEntry, SessionName, TicketReport } from './types.js';

// `lanes report`: the night in one read, built from the journal (what was decided) and the live
// store (who is alive, who waits, what a dead session left), so it says what `lanes log`, the page
// and `lanes doctor` say. Only the decisions worth a morning are read from the journal (no grants,
// releases or allowed calls: the bulk of it), a page at a time.

/** The journal kinds a report reads, and what each is to it. */
const READ: Partial<Record<JournalKind, ReportItem['kind'] | 'started' | 'ended' | 'notify'>> = {
  land: 'landed',
  commit: 'committed',
  'claim.refuse': 'refused',
  'commit.refuse': 'refused',
  'land.refuse': 'refused',
  'guard.refuse': 'refused',
  'fence.refuse': 'refused',
  'state.refuse': 'refused',
  'handoff.refuse': 'refused',
  'claim.cycle': 'refused',
  'hook.deny': 'denied',
  'hook.unchecked': 'unchecked',
  'guard.override': 'overridden',
  'claim.takeover': 'taken over',
  'land.abort': 'interrupted',
  'commit.abort': 'interrupted',
  'sweep.flag': 'collision',
  'conflicts.found': 'collision',
  adopt: 'adopted',
  'seat.exhausted': 'seat ran out',
  'seat.failover': 'seat changed',
  'session.start': 'started',
  'session.end': 'ended',
  'session.died': 'died',
  'teardown.fail': 'teardown failed',
  'budget.pause': 'budget',
  'budget.soft': 'budget',
  'budget.stop': 'budget',
  'budget.runaway': 'budget',
  'notify.sent': 'notify',
  'notify.fail': 'notify',
};
const PAGE = 5000;

export interface ReportOptions {
  /** Entries at or after this time (store clock, ms). */
  since?: number;
  /** Entries after this journal sequence number (`--since-last`). */
  afterSeq?: number;
}

export async function nightReport(lanes: Lanes, options: ReportOptions): Promise<NightReport> {
  const now = await lanes.now();
  const since = options.since ?? now - 12 * 3_600_000;
  const read: JournalEntry[] = [];
  let after = options.afterSeq;
  for (;;) {
    const page = await lanes.journal.list({
      ...(after !== undefined ? { afterSeq: after } : { since }),
      kinds: Object.keys(READ),
      limit: PAGE,
    });
    read.push(...page);
    if (page.length < PAGE) break;
    after = page[page.length - 1]!.seq;
  }
  const lastSeq = read.length ? read[read.length - 1]!.seq : (options.afterSeq ?? null);
  // A row lanes cannot read whole is named, never guessed at: the rest of the night stays readable.
  const entries = read.filter((e) => !e.unreadable);
  const unreadable = read.filter((e) => e.unreadable).map((e) => ({ seq: e.seq, kind: e.kind, why: e.unreadable! }));
  const all = await lanes.sessions.list({ all: true });
  const byId = new Map(all.map((s) => [s.id, s]));
  const name = (id: string | null): SessionName | null => (id ? sessionName(id, byId.get(id)) : null);

  // A subagent's session (no ticket of its own) is part of its parent's ticket.
  const ticketOfSession = (s: SessionRecord | undefined): string | null =>
    s?.ticket ?? (s?.parent ? (byId.get(s.parent)?.ticket ?? null) : null);
  const tickets = new Map<string, TicketReport>();
  const ticketOf = (repo: string | null, ticket: string | null): TicketReport => {
    const key = `${repo ?? ''}\u0000${ticket ?? ''}`;
    let t = tickets.get(key);
    if (!t) {
      t = { repo, mainWorktree: mainWorktreeOf(repo), ticket, sessions: [], items: [] };
      tickets.set(key, t);
    }
    return t;
  };
  // The last word of each notification channel: a failure not followed by a delivery is still failing.
  const channels = new Map<string, JournalEntry>();
  for (const e of entries) {
    const kind = READ[e.kind];
    if (!kind) continue;
    if (kind === 'notify') {
      const sent = e.kind === 'notify.sent' ? e.details['channels'] : [];
      if (Array.isArray(sent)) for (const c of sent) channels.delete(String(c));
      if (e.kind === 'notify.fail') channels.set(String(e.details['channel'] ?? 'notify'), e);
      continue;
    }
    const s = e.session ? byId.get(e.session) : undefined;
    // Lands journaled before the fix carry the claim (`ticket:SEAT-1`) as their ticket.
    const t = ticketOf(e.repo ?? s?.repo ?? null, e.ticket?.replace(/^ticket:/, '') ?? ticketOfSession(s));
    const who = name(e.session);
    if (who && !t.sessions.some((x) => x.id === who.id)) t.sessions.push(who);
    if (kind === 'started' || kind === 'ended') continue;
    const text = describeSafely(e, (id) => named(sessionName(id, byId.get(id))));
    // The moments its words name (a seat's reset, a holder's since), for a page to write in its reader's zone.
    const times = timesIn(text, e.at);
    t.items.push({
      kind,
      at: e.at,
      seq: e.seq,
      journalKind: e.kind,
      session: who,
      subject: e.subject,
      text,
      ...(times.length ? { times } : {}),
    });
  }
  // Live sessions of no entry in the window still belong to the night.
  const open = all.filter((s) => s.endedAt === null);
  for (const s of open) {
    const t = ticketOf(s.repo, ticketOfSession(s));
    if (!t.sessions.some((x) => x.id === s.id)) t.sessions.push(sessionName(s.id, s));
  }

  const died = await deathsOf(lanes, entries, open, byId, ticketOfSession);
  const finished = await finishedOf(lanes, all, entries, since);
  const live = open.filter((s) => s.state === 'live');
  const group = (key: (s: SessionView) => string | null) => {
    const m = new Map<string, SessionName[]>();
    for (const s of live) {
      const k = key(s);
      if (k) m.set(k, [...(m.get(k) ?? []), sessionName(s.id, s)]);
    }
    return [...m].filter(([, v]) => v.length > 1).map(([k, sessions]) => ({ key: k, sessions }));
  };
  const seats = await lanes.seats.list().catch(() => []);
  const billed = new Map((await lanes.seats.billed().catch(() => [])).map((b) => [b.seat, b.sources]));
  const seatsBilled = seats
    .filter((s) => billed.has(s.name))
    .map((s) => ({ name: s.name, agent: s.agent, pool: s.pool, sources: billed.get(s.name) ?? [] }));
  const seatsOut = seats
    .filter((s) => s.state === 'exhausted')
    .map((s) => ({
      name: s.name,
      agent: s.agent,
      pool: s.pool,
      until: s.until ?? now,
      why: s.exhaustedWhy,
      // A seat whose files bill per call is never leased: not a seat the pool has left.
      freeInPool: seats.filter(
        (x) => x.pool === s.pool && !x.payPerUse && !billed.has(x.name) && (x.state === 'free' || x.state === 'leased'),
      ).length,
    }));
  const waits = (await lanes.claims.waits()).map((w) => ({
    session: sessionName(w.wait.sessionId, byId.get(w.wait.sessionId) ?? w.session ?? undefined),
    resources: w.wait.resources.map((r) => `${r.kind}:${r.name}`),
    since: w.wait.since,
    heldBy: [...new Set(w.heldBy.map((h) => h.claim.sessionId))].map((id) => name(id)!),
    live: w.live,
  }));
  const report: NightReport = {
    from: options.afterSeq !== undefined ? null : since,
    afterSeq: options.afterSeq ?? null,
    until: now,
    lastSeq,
    store: lanes.storeInfo.location,
    counts: {
      sessions: new Set([...entries.map((e) => e.session).filter(Boolean), ...open.map((s) => s.id)]).size,
      landed: entries.filter((e) => e.kind === 'land').length,
      refused: entries.filter((e) => READ[e.kind] === 'refused' || READ[e.kind] === 'denied').length,
      died: died.length,
    },
    needsYou: [],
    review: [],
    tickets: [...tickets.values()].filter((t) => t.items.length > 0 || t.sessions.length > 0),
    died,
    finished,
    sharedWorktrees: group((s) => s.worktree ?? s.cwd).map((g) => ({ worktree: g.key, sessions: g.sessions })),
    sameTicket: group((s) => s.ticket).map((g) => ({ ticket: g.key, sessions: g.sessions })),
    waits,
    seatsOut,
    seatsBilled,
    attention: live
      .filter((s) => s.attention)
      .map((s) => ({
        session: sessionName(s.id, s),
        state: s.attention!.state,
        since: s.attention!.at,
        why: s.attention!.why,
        worktree: s.worktree,
        pid: s.owner.pid,
        terminal: s.terminal,
      })),
    unreadable,
    notifyFailing: [...channels.values()].map((e) => ({
      channel: String(e.details['channel'] ?? ''),
      at: e.at,
      error: String(e.details['error'] ?? ''),
    })),
  };
  // The review list (the landing queues, pull requests) and what the night spent: report/morning.ts.
  await addReviewAndSpend(lanes, report, byId, now);
  // A teardown that failed, or was killed while it ran: what it made (a database) stays until it runs.
  const torn = await lanes.sessions.teardownsDue().catch(() => []);
  report.needsYou = [
    ...needsYou(report, now),
    // Budgets passed (issue 50): a soft one is told once; a pause shows as the session waiting.
    ...entries
      .filter((e) => e.kind === 'budget.soft' || e.kind === 'budget.stop' || e.kind === 'budget.runaway')
      .map((e) => ({
        what: describeSafely(e, (id) => named(sessionName(id, byId.get(id)))),
        command:
          e.kind === 'budget.stop'
            ? `lanes new ${e.ticket ?? e.subject} --resume`
            : e.kind === 'budget.runaway'
              ? `lanes attach ${e.subject}`
              : `lanes budget ${e.subject}`,
      })),
    // Stopped by the landing queue: each needs its agent or a person before it is marked ready again.
    ...report.review
      .filter((e) => e.status === 'conflict' || e.status === 'check failed' || e.status === 'stopped')
      .map((e) => ({ what: e.what, command: e.command })),
    ...torn
      .filter((s) => s.setupState === 'failed' || s.setupState === 'tearing')
      .map((s) => {
        // Not run because its lanes.toml is not allowed (an agent changed it, say): read, allow, run.
        const last = entries.filter((e) => e.kind === 'teardown.fail' && e.session === s.id).pop();
        const blocked = typeof last?.details['blocked'] === 'string' ? last.details['blocked'] : null;
        return blocked
          ? {
              what: `the [session] teardown of ${named(sessionName(s.id, s))} did not run: ${blocked} is not allowed as it is now (read it first: an agent may have changed it)`,
              command: `lanes allow ${shellWord(blocked)} && lanes teardown ${shellWord(s.id)}`,
            }
          : {
              what: `the [session] teardown of ${named(sessionName(s.id, s))} ${s.setupState === 'failed' ? 'failed' : 'was killed while it ran'}: what its setup made is still there`,
              command: `lanes teardown ${shellWord(s.id)}`,
            };
      }),
  ];
  return report;
}

/** One sentence for an entry; details of a shape its kind never has (another writer) fall back to the log's words. */
function describeSafely(e: JournalEntry, who: (id: string) => string): string {
  try {
    return describe(e, who);
  } catch {
    return describeEntry(e);
  }
}

/** One sentence for an entry, from its details. */
function describe(e: JournalEntry, who: (id: string) => string): string {
  const d = e.details;
  const short = (v: unknown) => (typeof v === 'string' ? v.slice(0, 10) : '?');
  switch (e.kind) {
    case 'land':
      return `${String(d['branch'] ?? '').replace('refs/heads/', '')} on ${e.subject} (${String(d['mode'] ?? '')}) ${short(d['from'])} -> ${short(d['to'])}, token ${String(d['token'] ?? '?')}`;
    case 'commit':
      return `${short(d['commit'])} on ${e.subject.replace('refs/heads/', '')}, ${String(d['count'] ?? '?')} file(s)`;
    case 'claim.refuse': {
      const held = Array.isArray(d['heldBy'])
        ? (d['heldBy'] as { session?: string }[]).map((h) => (h.session ? who(h.session) : '?'))
        : [];
      return `claim of ${e.subject}: held by ${held.join(', ') || 'another session'}`;
    }
    case 'hook.deny':
      return `${e.subject}: ${String(d['reason'] ?? d['message'] ?? 'denied').slice(0, 200)}`;
    case 'hook.unchecked':
      return `${String(d['agent'] ?? '?')} ${String(d['event'] ?? '')} NOT checked (store unreachable, allowed): ${e.subject}: ${String(d['error'] ?? '').slice(0, 160)}`;
    case 'seat.exhausted':
    case 'seat.failover':
    case 'budget.pause':
    case 'budget.soft':
    case 'budget.stop':
    case 'budget.runaway':
      return describeEntry(e);
    default: {
      const why = d['message'] ?? d['reason'] ?? d['why'] ?? d['code'];
      return `${e.subject}${why ? `: ${String(why).slice(0, 200)}` : ''}`;
    }
  }
}
