import { existsSync } from 'node:fs';
import type { JournalEntry } from '../../store/journal-types.js';
import type { SessionRecord } from '../../store/types.js';
import type { Lanes } from '../lanes-api.js';
import type { SessionView } from '../sessions/sessions.js';
import { mainWorktreeOf } from '../../git/main-worktree.js';
import { status } from '../../git/status.js';
import { GIT_PARALLEL, inBatches } from '../../core/in-batches.js';
import { shellWord } from '../../core/shell-quote.js';
import { continueCommand } from '../../core/continue-command.js';
import { paneLogOf } from '../../core/pane-log-path.js';
import type { NightReport, SessionName } from './types.js';

// Two parts of the morning report read from the journal and git, not from sessions' current state:
// every death of the window (whatever ended the session later), and the tickets whose last session
// finished with commits the main branch lacks.

export function sessionName(id: string, s: SessionRecord | SessionView | undefined): SessionName {
  return {
    id,
    label: s?.label ?? null,
    agent: s?.agent ?? null,
    ticket: s?.ticket ?? null,
    host: s?.owner.host ?? null,
    parent: s?.parent ?? null,
    state: s && 'state' in s ? s.state : null,
  };
}

/** Every death of the window (session.died, the first per session), and the open sessions dead now that no entry tells. */
export async function deathsOf(
  lanes: Pick<Lanes, 'snapshots'>,
  entries: JournalEntry[],
  open: SessionView[],
  byId: Map<string, SessionView>,
  ticketOfSession: (s: SessionRecord | undefined) => string | null,
): Promise<NightReport['died']> {
  // Every death of the window from the journal (one per session: the first), whatever ended the
  // session later; and the open sessions dead now that no entry of the window tells.
  const deaths = new Map<string, JournalEntry>();
  for (const e of entries)
    if (e.kind === 'session.died' && e.session && !deaths.has(e.session)) deaths.set(e.session, e);
  const deadNow = open.filter((s) => s.state === 'dead' && !deaths.has(s.id));
  const gone = [
    ...[...deaths.values()].map((e) => ({ id: e.session!, entry: e as JournalEntry | null })),
    ...deadNow.map((s) => ({ id: s.id, entry: null as JournalEntry | null })),
  ].slice(0, 100);
  // One listing of the snapshots and one git status per worktree (dead sessions often share one),
  // a few git processes at a time: a page asks for this report while another page loads.
  const snapshots = gone.length > 0 ? await lanes.snapshots.list().catch(() => []) : [];
  const statuses = new Map<string, Promise<number | null>>();
  const unsavedIn = (worktree: string): Promise<number | null> => {
    const known = statuses.get(worktree);
    if (known) return known;
    const n = status(worktree).then(
      (f) => f.length,
      () => null,
    );
    statuses.set(worktree, n);
    return n;
  };
  return inBatches(gone, GIT_PARALLEL, async ({ id, entry }) => {
    const s = byId.get(id);
    const snaps = snapshots.filter((x) => x.owner === id);
    const last = snaps[snaps.length - 1] ?? null;
    const recorded = typeof entry?.details['worktree'] === 'string' ? (entry.details['worktree'] as string) : null;
    const wt = s?.worktree ?? recorded;
    const worktree = wt && existsSync(wt) ? wt : null;
    const unsaved = worktree ? await unsavedIn(worktree) : null;
    const from = mainWorktreeOf(s?.repo ?? entry?.repo ?? null) ?? worktree ?? s?.cwd ?? '.';
    const who = sessionName(id, s);
    return {
      session: who,
      why: entry ? String(entry.details['how'] ?? 'died') : (s?.why ?? 'owner gone'),
      at: entry?.at ?? null,
      worktree,
      unsavedFiles: unsaved,
      lastSnapshot: last ? `${last.owner}/${last.n}` : null,
      restore: last ? `cd ${shellWord(from)} && lanes restore ${shellWord(`${last.owner}/${last.n}`)}` : null,
      continue: continueCommand({ id, ticket: who.ticket ?? ticketOfSession(s) }),
      lastScreen: existsSync(paneLogOf(id)) ? paneLogOf(id) : null,
    };
  });
}

/**
 * Per ticket of the window, its last session when it ended without dying and its branch holds
 * commits the main branch lacks: `lanes land --ticket T` lands it (a few git reads, at most 50).
 */
export async function finishedOf(
  lanes: Pick<Lanes, 'sessions'>,
  all: SessionView[],
  entries: JournalEntry[],
  since: number,
): Promise<NightReport['finished']> {
  const lastOf = new Map<string, SessionView>();
  for (const s of all)
    if (s.ticket && s.parent === null && (!lastOf.get(s.ticket) || lastOf.get(s.ticket)!.createdAt < s.createdAt))
      lastOf.set(s.ticket, s);
  const ended = [...lastOf.values()].filter(
    (s) => s.endedAt !== null && s.died === null && (s.endedAt >= since || entries.some((e) => e.session === s.id)),
  );
  return (
    await inBatches(ended.slice(0, 50), GIT_PARALLEL, async (s) => {
      const left = await lanes.sessions.left(s.id).catch(() => null);
      if (!left?.branch || left.ahead === 0) return null;
      const branch = left.branch.replace(/^refs\/heads\//, '');
      return {
        ticket: s.ticket!,
        session: sessionName(s.id, s),
        branch,
        ahead: left.ahead,
        command: `lanes land --ticket ${shellWord(s.ticket!)}`,
      };
    })
  ).filter((f): f is NonNullable<typeof f> => f !== null);
}
