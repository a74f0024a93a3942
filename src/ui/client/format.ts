// How times and values read on the page: every moment in one clock, the reader's; ages on the store's clock.
import { html } from './html.js';
import type { UiTime } from '../view-types.js';

const HALF_YEAR = 183 * 86_400_000;
let clocks: Record<'time' | 'date' | 'year' | 'day', Intl.DateTimeFormat> | null = null;

/**
 * The browser's locale and time zone (no locale or zone given: the reader's own), hours and minutes
 * written as the locale writes a short time (00:28, 12:28 AM). A date with the same hours and
 * minutes takes the hour's digits from that short time: `{ hour: 'numeric' }` alone writes 0:28
 * in en-GB, where its short time is 00:28.
 */
function formats() {
  if (clocks) return clocks;
  const short = new Intl.DateTimeFormat(undefined, { timeStyle: 'short' });
  const hour = short.formatToParts(Date.UTC(2000, 0, 1, 1, 5)).find((p) => p.type === 'hour')?.value ?? '';
  const hm: Intl.DateTimeFormatOptions = {
    hour: hour.length === 2 ? '2-digit' : 'numeric',
    minute: '2-digit',
    hourCycle: short.resolvedOptions().hourCycle,
  };
  clocks = {
    time: short,
    date: new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', ...hm }),
    year: new Intl.DateTimeFormat(undefined, { year: 'numeric', month: 'short', day: 'numeric', ...hm }),
    day: new Intl.DateTimeFormat(undefined, { year: 'numeric', month: 'numeric', day: 'numeric' }),
  };
  return clocks;
}

/**
 * A moment as the page writes every moment: `00:28` today (the reader's today), `6 Dec, 23:10`
 * (`Dec 6, 11:10 PM`) another day, with the year when it is more than half a year away.
 */
export function clock(ms: number, now = Date.now()): string {
  // Written once per moment and minute of the reader's clock: Intl's formatting, three calls per
  // moment, was the page's costliest work when a picture of 1,000 sessions came (bench/ui.mjs
  // --page-prof); what "today" and "half a year away" mean moves only with the minute.
  const minute = Math.floor(now / 60_000);
  if (minute !== written.minute || written.text.size > 20_000) written = { minute, text: new Map() };
  let text = written.text.get(ms);
  if (text === undefined) {
    const f = formats();
    text =
      f.day.format(ms) === f.day.format(now)
        ? f.time.format(ms)
        : (Math.abs(now - ms) > HALF_YEAR ? f.year : f.date).format(ms);
    written.text.set(ms, text);
  }
  return text;
}
let written = { minute: 0, text: new Map<number, string>() };

/** The reader's day at `ms` (what `clock` writes a moment against: today's without a date). */
export function dayOf(ms: number): string {
  return new Date(ms).toDateString();
}

/** A moment on the page: `clock`, in a <time> that carries the exact instant. */
export function Time(props: { at: number }) {
  return html`<time datetime=${new Date(props.at).toISOString()}>${clock(props.at)}</time>`;
}

/** A text from the server with the moments it names (in UTC) written in the reader's clock instead. */
export function TimedText(props: { text: string; times?: UiTime[] | undefined }) {
  const parts: unknown[] = [];
  let rest = props.text;
  for (const t of props.times ?? []) {
    const i = rest.indexOf(t.text);
    // A moment the text no longer holds as sent (redacted around it) stays as the text has it.
    if (i < 0) continue;
    parts.push(rest.slice(0, i), html`<${Time} at=${t.at} />`);
    rest = rest.slice(i + t.text.length);
  }
  parts.push(rest);
  return html`${parts}`;
}

export function age(fromMs: number, nowMs: number): string {
  const s = Math.max(0, Math.round((nowMs - fromMs) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86400)} d ago`;
}

export function dash(v: string | number | null | undefined): string {
  return v === null || v === undefined || v === '' ? '–' : String(v);
}

/** A journal entry's details on one line, long values cut. */
export function detailsText(details: Record<string, unknown>): string {
  const parts = Object.entries(details).map(([k, v]) => {
    const text = typeof v === 'string' ? v : JSON.stringify(v);
    return `${k}=${text && text.length > 80 ? text.slice(0, 77) + '…' : text}`;
  });
  return parts.join(' ');
}

/**
 * Not proven either way (out of sight, facts unreadable): kept live by lanes, said as unknown here.
 * A live session showing what its agent signalled says that (waiting, finished, denied).
 */
export function shownState(s: {
  state: string;
  why: string;
  attention?: { state: string } | null;
  died?: string | null;
}): string {
  if (s.state === 'live' && s.why.startsWith('unknown:')) return 'unknown';
  // Ended after it died: a death stays a death (issue 45).
  if (s.state === 'ended' && s.died) return 'died';
  return s.state === 'live' && s.attention ? s.attention.state : s.state;
}

/** A path as text the browser breaks only after a separator (never mid-name). */
export function pathParts(path: string): (string | { wbr: true })[] {
  const out: (string | { wbr: true })[] = [];
  for (const part of path.split(/(?<=\/)/)) out.push(part, { wbr: true });
  return out.slice(0, -1);
}
