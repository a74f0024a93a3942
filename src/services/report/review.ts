import { shellWord } from '../../core/shell-quote.js';
import type { PullRequest } from '../land/pr-list.js';
import type { QueueEntry, QueueStop } from '../land/queue.js';
import { named } from './needs-you.js';
import type { NightReport, ReviewEntry, SessionName } from './types.js';

// The morning's review list (issue 49, item 5): one line per ticket (a session without one: per
// session), in the order a lead settles them over coffee: ready to land, landed, finished but not
// in the queue, stopped by the queue (a conflict, a failed check), waiting for input, died; each
// with the one command that moves it. A ticket is listed once, at its most pressing state.

const ORDER: ReviewEntry['status'][] = [
  'ready',
  'landed',
  'pr open',
  'finished',
  'conflict',
  'check failed',
  'stopped',
  'waiting',
  'died',
];

export interface QueueOfRepo {
  ready: QueueEntry[];
  stopped: QueueStop[];
}

export function reviewList(
  r: NightReport,
  queues: QueueOfRepo[],
  nameOf: (id: string) => SessionName,
  pullRequests: PullRequest[] = [],
): ReviewEntry[] {
  const out = new Map<string, ReviewEntry>();
  const rank = (e: ReviewEntry) => ORDER.indexOf(e.status);
  const put = (e: ReviewEntry) => {
    const key = e.ticket ? `t:${e.ticket}` : `s:${e.session.id}`;
    const had = out.get(key);
    // The later state of a ticket wins over the night's earlier ones: ready or stopped now, not landed before.
    if (!had || rank(e) < rank(had) || (had.status === 'landed' && e.status !== 'landed')) out.set(key, e);
  };
  const ticketWord = (t: string | null, s: SessionName) => shellWord(t ?? s.id);
  for (const t of r.tickets)
    for (const i of t.items)
      if (i.kind === 'landed' && t.ticket && i.session)
        put({
          ticket: t.ticket,
          session: i.session,
          status: 'landed',
          what: `${t.ticket} landed: ${i.text}`,
          command: `lanes diff ${ticketWord(t.ticket, i.session)} --stat`,
        });
  for (const p of pullRequests) {
    if (p.state && p.state.state !== 'OPEN') continue; // merged or closed: settled on GitHub
    const session = nameOf(p.session);
    const checks = p.state?.checks;
    put({
      ticket: p.ticket,
      session,
      status: 'pr open',
      what: `${p.ticket ?? session.id} has a pull request, ${p.text}: ${p.url}`,
      url: p.url,
      command:
        checks === 'failing'
          ? `gh pr checks ${p.url}`
          : checks === 'pending'
            ? `gh pr checks ${p.url} --watch`
            : `gh pr view ${p.url} --web`,
    });
  }
  for (const f of r.finished)
    put({
      ticket: f.ticket,
      session: f.session,
      status: 'finished',
      what: `${f.ticket} finished, not in the landing queue: ${f.branch} ${f.ahead} commit(s) ahead (${named(f.session)})`,
      command: `lanes diff ${shellWord(f.ticket)} --stat && lanes ready ${shellWord(f.ticket)}`,
    });
  for (const q of queues) {
    for (const s of q.stopped) {
      const session = nameOf(s.session);
      const status = s.reason === 'conflict' ? 'conflict' : s.reason === 'check failed' ? 'check failed' : 'stopped';
      put({
        ticket: s.ticket,
        session,
        status,
        what: `${s.ticket ?? session.id} stopped by the landing queue (${s.reason}): ${s.why.split('\n')[0]}`,
        command:
          session.state === 'live'
            ? `lanes attach ${shellWord(session.id)}   (fix it there; lanes ready marks it again)`
            : `lanes diff ${ticketWord(s.ticket, session)}   (then fix it, and lanes ready ${ticketWord(s.ticket, session)})`,
      });
    }
    for (const [i, e] of q.ready.entries()) {
      const session = nameOf(e.session);
      put({
        ticket: e.ticket,
        session,
        status: 'ready',
        what: `${e.ticket ?? session.id} is ready to land (${i + 1} of ${q.ready.length} in line): ${e.branch} at ${e.tip.slice(0, 10)}, ${named(session)}`,
        command: 'lanes land --queue',
      });
    }
  }
  for (const a of r.attention)
    if (a.state === 'waiting')
      put({
        ticket: a.session.ticket,
        session: a.session,
        status: 'waiting',
        what: `${named(a.session)} waits for you${a.why ? `: ${a.why}` : ''}`,
        command: a.terminal?.startsWith('tmux ')
          ? `lanes attach ${shellWord(a.session.id)}`
          : `answer it in its terminal (agent pid ${a.pid})`,
      });
  for (const d of r.died)
    put({
      ticket: d.session.ticket,
      session: d.session,
      status: 'died',
      what: `${named(d.session)} died (${d.why || 'owner gone'})`,
      command: d.continue,
    });
  return [...out.values()].sort((a, b) => rank(a) - rank(b));
}
