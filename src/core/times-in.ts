// The moments a text names, found so a reader's page can write them in its own time zone. lanes'
// words are the CLI's: they write moments in UTC (a seat's reset, a holder's "since 18:22:01 UTC" in
// a refusal), and what was stored so stays so (journal rows, an agent's attention, written by any
// version); the page (lanes ui) is sent each moment as epoch ms beside the text, so it shows one
// clock, its reader's, instead of the text's UTC.

/** A moment a text names: its exact text there, and the moment in epoch ms. */
export interface TimeInText {
  text: string;
  at: number;
}

// The three shapes lanes writes: `2026-12-05 21:36 UTC` (core/duration.ts utcMinute), an ISO time
// (`2026-12-05T21:36:07.123Z`) and a time of day `21:36:07 UTC` (services/describe.ts
// describeHolder), which is followed by its age, `(3m20s ago)`, that says which day it was. The age
// is read by a lookahead with an empty alternative, `(?=…|)`: an optional one, `(?=…)?`, never
// captures (an empty match of the group is skipped).
const SHAPES =
  /\b(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d) UTC\b|\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z|\b(\d\d):(\d\d):(\d\d) UTC\b(?= \((\w+) ago\)|)/g;
const DAY = 86_400_000;
const UNIT: Record<string, number> = { d: DAY, h: 3_600_000, m: 60_000, s: 1000 };

/** `3m20s` (core/duration.ts formatAge) in ms, or null. */
function ageMs(text: string | undefined): number | null {
  if (!text || !/^(\d+[dhms])+$/.test(text)) return null;
  let ms = 0;
  for (const [, n, unit] of text.matchAll(/(\d+)([dhms])/g)) ms += Number(n) * UNIT[unit!]!;
  return ms;
}

/**
 * The moments `text` names, each with its exact text. `ref` is when the text was written (the
 * entry's time): a time of day alone is the one nearest to `ref` less the age written after it.
 */
export function timesIn(text: string, ref: number): TimeInText[] {
  const out: TimeInText[] = [];
  for (const m of text.matchAll(SHAPES)) {
    const [whole, y, mo, d, h, mi, th, tm, ts, age] = m;
    let at: number;
    if (y) at = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi));
    else if (th) {
      const target = ref - (ageMs(age) ?? 0);
      const ofDay = (Number(th) * 60 + Number(tm)) * 60_000 + Number(ts) * 1000;
      const day = Math.floor(target / DAY) * DAY;
      // The day before, of, or after the target's (UTC): whichever puts the time nearest to it.
      at = [day - DAY, day, day + DAY]
        .map((base) => base + ofDay)
        .reduce((a, b) => (Math.abs(b - target) < Math.abs(a - target) ? b : a));
    } else at = Date.parse(whole);
    if (Number.isFinite(at)) out.push({ text: whole, at });
  }
  return out;
}
