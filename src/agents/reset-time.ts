// When an agent's usage limit resets, from its own words (ms since the epoch), or null: an ISO
// time; "in 2 hours"; a clock time, "resets 4am", "reset at 5am (Europe/Berlin)", with a date when
// it is not within a day, "resets Dec 5, 9:36pm (UTC)" (Claude Code 2.1: the time zone it names in
// brackets, else the local one).

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const CLOCK =
  /\bresets?\s+(?:at\s+)?(?:([a-z]{3})[a-z]*\.?\s+(\d{1,2}),?\s+(?:at\s+)?)?(\d{1,2})(?::(\d{2}))?\s*(am|pm)?\b(?:\s*\(([\w+\-/]+)\))?/i;

export function resetFromText(text: string | null, now = Date.now()): number | null {
  if (!text) return null;
  const iso = /\b(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2}))/.exec(text);
  if (iso) {
    const t = Date.parse(iso[1] as string);
    if (Number.isFinite(t)) return t;
  }
  const rel = /\bin\s+(\d+(?:\.\d+)?)\s*(seconds?|secs?|minutes?|mins?|hours?|hrs?|h|m|s)\b/i.exec(text);
  if (rel) {
    const n = Number(rel[1]);
    const unit = (rel[2] as string).toLowerCase();
    const ms = unit.startsWith('h') ? 3_600_000 : unit.startsWith('m') ? 60_000 : 1000;
    return now + n * ms;
  }
  const c = CLOCK.exec(text);
  if (!c) return null;
  let h = Number(c[3]);
  const m = Number(c[4] ?? 0);
  const ampm = c[5]?.toLowerCase();
  if (ampm === 'pm' && h < 12) h += 12;
  if (ampm === 'am' && h === 12) h = 0;
  if (h > 23 || m > 59) return null;
  const month = c[1] ? MONTHS.indexOf(c[1].toLowerCase()) : -1;
  if (c[1] && month < 0) return null;
  const zone = c[6] && offsetIn(c[6], now) !== null ? c[6] : null;
  // The zone's calendar today (or the local one), then the first such time not in the past.
  const today = civil(now, zone);
  const at = (y: number, mo: number, d: number) => instant(Date.UTC(y, mo, d, h, m), zone);
  if (month >= 0) {
    const day = Number(c[2]);
    const t = at(today.y, month, day);
    // A date more than a day behind is next year's (Dec 31 read on Jan 1 stays this one).
    return t < now - 86_400_000 ? at(today.y + 1, month, day) : t;
  }
  const t = at(today.y, today.mo, today.d);
  return t <= now ? at(today.y, today.mo, today.d + 1) : t;
}

/** The zone's offset from UTC at `t` (ms), or null when the zone is unknown. */
function offsetIn(zone: string, t: number): number | null {
  try {
    const c = civil(t, zone);
    return Date.UTC(c.y, c.mo, c.d, c.h, c.mi, c.s) - Math.floor(t / 1000) * 1000;
  } catch {
    return null;
  }
}

function civil(t: number, zone: string | null) {
  if (!zone) {
    const d = new Date(t);
    return { y: d.getFullYear(), mo: d.getMonth(), d: d.getDate(), h: d.getHours(), mi: d.getMinutes(), s: 0 };
  }
  const f = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  });
  const p: Record<string, number> = {};
  for (const part of f.formatToParts(t)) if (part.type !== 'literal') p[part.type] = Number(part.value);
  return { y: p['year']!, mo: p['month']! - 1, d: p['day']!, h: p['hour']!, mi: p['minute']!, s: p['second']! };
}

/** The instant whose wall clock in `zone` (local when null) reads `wall` (a UTC-encoded y/m/d h:m). */
function instant(wall: number, zone: string | null): number {
  if (!zone) {
    const w = new Date(wall);
    return new Date(w.getUTCFullYear(), w.getUTCMonth(), w.getUTCDate(), w.getUTCHours(), w.getUTCMinutes()).getTime();
  }
  const first = wall - (offsetIn(zone, wall) ?? 0);
  return wall - (offsetIn(zone, first) ?? 0);
}
