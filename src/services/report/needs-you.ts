import type { NeedsYou, NightReport, SessionName } from './types.js';
import { utcMinute } from '../../core/duration.js';
import { timesIn } from '../../core/times-in.js';
import type { TimeInText } from '../../core/times-in.js';

// The top of the report: what a person has to settle this morning, each with the one command
// that settles it. Everything else in the report is for reading.

/** A session by its label first (what a person calls it), its agent and ticket, the id last. */
export function named(s: SessionName): string {
  const what = [s.agent, s.ticket, s.parent && `subagent of ${s.parent}`].filter(Boolean).join(', ');
  if (s.label) return `${s.label} (${what ? `${what}; ` : ''}${s.id})`;
  return what ? `${s.id} (${what})` : s.id;
}

const WAIT_TOO_LONG = 30 * 60_000;

/** A moment written here, and where it is in the text. */
const minute = (at: number): TimeInText => ({ text: utcMinute(at), at });
/** An item with the moments its text names (none: no `times`). */
const item = (what: string, command: string, times: TimeInText[] = []): NeedsYou =>
  times.length ? { what, command, times } : { what, command };

export function needsYou(r: NightReport, now: number): NeedsYou[] {
  const out: NeedsYou[] = [];
  for (const d of r.died) {
    const left =
      d.unsavedFiles === null
        ? 'its worktree is gone'
        : d.unsavedFiles > 0
          ? `${d.unsavedFiles} uncommitted file(s) in ${d.worktree}`
          : 'nothing uncommitted';
    out.push(
      item(
        `${named(d.session)} died${d.at ? ` at ${utcMinute(d.at)}` : ''} (${d.why || 'owner gone'}): ${left}${d.lastSnapshot ? `; saved in ${d.lastSnapshot}` : ''}`,
        d.continue,
        d.at ? [minute(d.at)] : [],
      ),
    );
  }
  for (const f of r.finished)
    out.push({
      what: `${f.ticket} finished, not landed: ${named(f.session)} left ${f.branch} ${f.ahead} commit(s) ahead of the main branch`,
      command: f.command,
    });
  for (const a of r.attention)
    if (a.state === 'waiting')
      out.push(
        item(
          `${named(a.session)} waits for you${a.why ? `: ${a.why}` : ''}`,
          a.terminal?.startsWith('tmux ')
            ? `lanes attach ${a.session.id}`
            : `answer it in its terminal (agent pid ${a.pid}${a.session.host ? ` on ${a.session.host}` : ''}${a.worktree ? `, in ${a.worktree}` : ''})`,
          // What lanes or the agent wrote when it asked (a seat's reset, in UTC).
          timesIn(a.why ?? '', a.since),
        ),
      );
  // A pool whose every seat ran out: its sessions wait or stopped until the first reset.
  const pools = new Map<string, NightReport['seatsOut']>();
  for (const s of r.seatsOut) if (s.freeInPool === 0) pools.set(s.pool, [...(pools.get(s.pool) ?? []), s]);
  for (const [pool, ran] of pools) {
    const first = minute(Math.min(...ran.map((s) => s.until)));
    const named5 = [...ran].sort((x, y) => x.until - y.until).slice(0, 5);
    out.push(
      item(
        `every seat of pool ${pool} ran out (${named5.map((s) => `${s.name}: ${s.why ?? 'quota'}`).join(', ')}); the first resets ${first.text}`,
        `lanes seat ls   (lanes seat add for another login; lanes seat reset NAME once one has quota again)`,
        [first],
      ),
    );
  }
  for (const s of r.seatsBilled)
    out.push({
      what: `seat ${s.name} (${s.agent}, pool ${s.pool}) is never leased: its login would bill per call through ${s.sources.map((b) => `${b.file} (${b.what})`).join('; ')}`,
      command: `take the key out of ${s.sources[0]?.file ?? 'the file named'}, or lanes seat rm ${s.name}`,
    });
  for (const f of r.notifyFailing)
    out.push(item(`notifications by ${f.channel} fail: ${f.error}`, 'lanes notify test', timesIn(f.error, f.at)));
  for (const t of r.tickets)
    for (const i of t.items)
      if (i.kind === 'interrupted')
        out.push(
          item(
            `an interrupted ${i.journalKind.split('.')[0]} of ${i.subject}: ${i.text}`,
            'lanes doctor --fix',
            i.times,
          ),
        );
  for (const s of r.sharedWorktrees)
    out.push({
      what: `${s.sessions.length} live sessions share one worktree and index: ${s.worktree} (${s.sessions.map(named).join('; ')})`,
      command: `lanes start --worktree --ticket T   (give each its own; or lanes doctor)`,
    });
  for (const w of r.waits)
    if (!w.live || w.heldBy.some((h) => h.state !== 'live') || now - w.since > WAIT_TOO_LONG)
      out.push({
        what: `${named(w.session)} waits for ${w.resources.join(' ')}${w.heldBy.length ? `, held by ${w.heldBy.map(named).join('; ')}` : ''}`,
        command: 'lanes claims',
      });
  return out;
}
