import { describeEntry } from '../../index.js';
import type { JournalEntry } from '../../index.js';

// One readable line per journal entry: local time, sequence number, kind, who, what and why.

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

/** `2026-11-30 17:45:12` in the machine's local time. */
export function localTime(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

export function formatEntry(e: JournalEntry): string {
  const who = e.session ? `${e.session}${e.ticket ? ` [${e.ticket}]` : ''}` : '-';
  // Numbers padded to six places, so the columns stand still past #9, #99, … up to #999999.
  return `${localTime(e.at)}  ${`#${e.seq}`.padEnd(7)}  ${e.kind.padEnd(15)}  ${who}  ${describeEntry(e)}\n`;
}
