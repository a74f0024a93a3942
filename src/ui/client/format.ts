// How times and values read on the page: local times, ages on the store's clock.

export function localTime(ms: number): string {
  const d = new Date(ms);
  const today = new Date();
  const sameDay = d.toDateString() === today.toDateString();
  return sameDay ? d.toLocaleTimeString() : d.toLocaleString();
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
