import { sessionNamed as named } from '../index.js';
import type { NightReport, SessionName } from '../index.js';
import { wrap } from './layout.js';
import { utcMinute } from '../core/duration.js';
import { totalTokens } from '../core/usage.js';

// `lanes report` as text for a terminal (wrapped to its width) or as Markdown for a ticket.

const clock = (ms: number) => new Date(ms).toISOString().slice(11, 16);
const day = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace('T', ' ');
const names = (ss: SessionName[]) => ss.map(named).join('; ');
/** Of each kind of a ticket's items, the latest this many are shown. */
const SHOWN = 5;
/** The same window for `lanes log`: hours back, or the entry the report started after. */
const since = (r: NightReport) =>
  r.from !== null ? `--since ${Math.max(1, Math.ceil((r.until - r.from) / 3_600_000))}h` : `--since ${r.afterSeq ?? 0}`;

export function renderReport(r: NightReport, o: { markdown: boolean; width: number }): string {
  const md = o.markdown;
  const out: string[] = [];
  const h = (t: string) => out.push('', md ? `## ${t}` : t);
  const item = (text: string, sub?: string) => {
    if (md) out.push(`- ${text}${sub ? `  \n  \`${sub}\`` : ''}`);
    else {
      out.push(`  • ${wrap(text, o.width, '    ')}`);
      if (sub) out.push(`      ${wrap(sub, o.width, '        ')}`);
    }
  };
  const window =
    r.from !== null ? `${day(r.from)} to ${day(r.until)} UTC` : `since entry ${r.afterSeq} (the last report read)`;
  const head = `lanes report: ${window}: ${r.counts.sessions} session(s), ${r.counts.landed} landed, ${r.counts.refused} refused or denied, ${r.counts.died} died`;
  out.push(md ? `# ${head}` : wrap(head, o.width, '  '));
  h(r.needsYou.length ? `Needs you (${r.needsYou.length})` : 'Needs you: nothing');
  for (const n of r.needsYou) item(n.what, n.command);
  if (r.review.length) {
    h(`Review (${r.review.length}): ${reviewCounts(r)}`);
    for (const e of r.review) item(`[${e.status}] ${e.what}`, e.command);
  }
  const spend = spendLines(r);
  if (spend.length) {
    h(spend[0]!);
    for (const l of spend.slice(1)) item(l);
  }
  if (r.unreadable.length) {
    h(`Unreadable journal rows (${r.unreadable.length})`);
    for (const u of r.unreadable.slice(0, SHOWN)) item(`#${u.seq} ${u.kind}: ${u.why}`);
    if (r.unreadable.length > SHOWN) item(`and ${r.unreadable.length - SHOWN} more: lanes log shows each`);
  }
  for (const t of r.tickets) {
    if (t.items.length === 0 && t.sessions.every((s) => s.state !== 'live')) continue;
    h(`${t.ticket ? `Ticket ${t.ticket}` : 'No ticket'}${t.repo ? ` in ${t.mainWorktree ?? t.repo}` : ''}`);
    if (t.sessions.length) item(`sessions: ${names(t.sessions)}`);
    // The latest few of each kind; the rest is counted, with the log command that lists them.
    const byKind = new Map<string, NightReport['tickets'][number]['items']>();
    for (const i of t.items) byKind.set(i.kind, [...(byKind.get(i.kind) ?? []), i]);
    for (const [kind, items] of byKind) {
      for (const i of items.slice(-SHOWN))
        item(`${clock(i.at)} ${kind}${i.session ? ` (${i.session.label ?? i.session.id})` : ''}: ${i.text}`);
      if (items.length > SHOWN)
        item(
          `… ${items.length - SHOWN} more ${kind}`,
          `lanes log ${since(r)}${t.ticket ? ` --ticket ${t.ticket}` : ''} ${[...new Set(items.map((i) => `--kind ${i.journalKind}`))].join(' ')}`,
        );
    }
  }
  if (r.died.length) {
    h('Died');
    for (const d of r.died)
      item(
        `${named(d.session)}${d.at ? ` at ${clock(d.at)}` : ''}: ${d.why || 'owner gone'}; ${d.unsavedFiles === null ? 'no worktree left' : `${d.unsavedFiles} uncommitted file(s)`}${d.lastSnapshot ? `, last snapshot ${d.lastSnapshot}` : ', no snapshot'}${d.lastScreen ? `; its last screen: lanes attach ${d.session.id}` : ''}`,
        d.continue,
      );
  }
  if (r.finished.length) {
    h('Finished, not landed');
    for (const f of r.finished)
      item(`${f.ticket}: ${f.branch}, ${f.ahead} commit(s) ahead (${named(f.session)})`, f.command);
  }
  if (r.sharedWorktrees.length || r.sameTicket.length) {
    h('Collisions');
    for (const s of r.sharedWorktrees) item(`one worktree and index shared: ${s.worktree}: ${names(s.sessions)}`);
    for (const s of r.sameTicket)
      item(`one ticket, ${s.sessions.length} live sessions: ${s.ticket}: ${names(s.sessions)}`);
  }
  const shown = r.attention.filter((a) => a.state !== 'waiting');
  if (shown.length) {
    h('Agents now');
    for (const a of shown)
      item(
        `${named(a.session)} ${a.state === 'finished' ? 'finished its turn' : 'was denied a call'} at ${clock(a.since)}${a.why ? `: ${a.why}` : ''}`,
      );
  }
  if (r.seatsOut.length) {
    h('Seats out');
    for (const s of r.seatsOut)
      item(
        `${s.name} (${s.agent}, pool ${s.pool}) ran out${s.why ? ` (${s.why})` : ''}; usable again ${utcMinute(s.until)}${s.freeInPool === 0 ? '; no other seat of its pool is free' : ''}`,
      );
  }
  if (r.waits.length) {
    h('Waits still open');
    for (const w of r.waits)
      item(
        `${named(w.session)} waits since ${clock(w.since)} for ${w.resources.join(' ')}${w.heldBy.length ? `, held by ${names(w.heldBy)}` : ' (free now)'}`,
      );
  }
  out.push(
    '',
    md
      ? `_store ${r.store}; lanes log --since … for every entry_`
      : wrap(`store ${r.store}; \`lanes log\` has every entry`, o.width, '  '),
  );
  return out.join('\n') + '\n';
}

/** `2 ready, 3 landed, 1 conflict`: the review list at a glance, in its order. */
function reviewCounts(r: NightReport): string {
  const counts = new Map<string, number>();
  for (const e of r.review) counts.set(e.status, (counts.get(e.status) ?? 0) + 1);
  return [...counts].map(([status, n]) => `${n} ${status}`).join(', ');
}

/** `1.2M` tokens: the night's spend in a few characters. */
function tokensText(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(n >= 10_000_000 ? 0 : 1)}M`;
  if (n >= 1000) return `${(n / 1000).toFixed(n >= 10_000 ? 0 : 1)}k`;
  return String(n);
}

/** The night's spend: a heading, then per ticket (most first), then what lanes could not read. */
function spendLines(r: NightReport): string[] {
  const s = r.spend;
  if (!s || !s.sessions.some((x) => x.measured)) return [];
  const t = s.total;
  const all = totalTokens(t);
  const out = [
    `Spend: ${tokensText(all)} tokens (in ${tokensText(t.input)}, out ${tokensText(t.output)}, cache read ${tokensText(t.cacheRead)}, cache write ${tokensText(t.cacheWrite)}), about $${s.costUsd.toFixed(2)}`,
  ];
  const byTicket = new Map<string, { usd: number; tokens: number; sessions: number }>();
  for (const x of s.sessions.filter((x) => x.measured)) {
    const k = x.ticket ?? x.session;
    const e = byTicket.get(k) ?? { usd: 0, tokens: 0, sessions: 0 };
    e.usd += x.costUsd ?? 0;
    e.tokens += totalTokens(x.tokens);
    e.sessions++;
    byTicket.set(k, e);
  }
  for (const [k, e] of [...byTicket].sort((a, b) => b[1].usd - a[1].usd || b[1].tokens - a[1].tokens))
    out.push(`${k}: ${tokensText(e.tokens)} tokens, about $${e.usd.toFixed(2)} (${e.sessions} session(s))`);
  for (const e of s.seats ?? [])
    out.push(
      `seat ${e.seat}: ${tokensText(totalTokens(e.tokens))} tokens, about $${e.costUsd.toFixed(2)} (${e.sessions} session(s))`,
    );
  const unpriced = [...new Set(s.sessions.flatMap((x) => x.unpriced))];
  if (unpriced.length)
    out.push(
      `no price for ${unpriced.join(', ')}: their tokens are not in the dollars (add them to $LANES_HOME/prices.json)`,
    );
  const unread = s.sessions.filter((x) => !x.measured).length;
  if (unread)
    out.push(
      `${unread} session(s) not measured: an agent whose usage lanes does not read yet, or no record named by its hooks`,
    );
  if (s.prices) out.push(s.prices);
  return out;
}
