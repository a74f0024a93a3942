// How a Codex turn ended, from Codex's own record of the session: the rollout JSONL it writes per
// session ($CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl). Codex 0.171 has no hook
// that carries a quota error (no StopFailure), so its record is where lanes reads that a login ran
// out (the rollout's path: the hook payload's transcript_path, or the wrapper's own look at exit).
// Read pure here (the caller reads the file's end: adapters never read the disk).
//
// A turn that fails on a ChatGPT plan's usage limit (HTTP 429 `usage_limit_reached`) leaves, in
// this order: a `token_count` event whose `rate_limits` are the plan's windows as the 429's
// x-codex-* headers said (`primary`/`secondary`: used_percent, window_minutes, resets_at in Unix
// seconds), then the turn's `task_complete` with `error: {message, codex_error_info:
// "usage_limit_exceeded"}` (Codex's `error` event itself is not kept in the rollout).
// codex_error_info `usage_limit_exceeded` also covers an API key's `insufficient_quota` ("Quota
// exceeded. Check your plan and billing details.": billing, nothing resets it) and a plan without
// Codex: their words tell them apart. A passing 429 is another codex_error_info
// (`rate_limit_exceeded`, `response_too_many_failed_attempts`), or no error at all once a retry
// went through: never a login that ran out.

export interface CodexRanOut {
  /** usage_limit_reached (the plan's windows), billing_error (an API key out of credit), usage_not_included. */
  why: string;
  message: string | null;
  /** When the exhausted window resets (ms since the epoch), or null when Codex named none. */
  resetAt: number | null;
}

/** An error older than this when read was told at its time, not by this end (a person sat on it). */
const RECENT_MS = 10 * 60_000;

type Entry = { timestamp?: unknown; type?: unknown; payload?: Record<string, unknown> };

const parse = (line: string): Entry | null => {
  if (!line.includes('"event_msg"')) return null;
  try {
    const e = JSON.parse(line) as Entry;
    return e.type === 'event_msg' && e.payload && typeof e.payload === 'object' ? e : null;
  } catch {
    return null; // a line cut by the tail's start, or one being written
  }
};

/** codex_error_info as serialized: a unit variant is its name, a struct variant an object keyed by it. */
const infoName = (info: unknown): string | null =>
  typeof info === 'string' ? info : info && typeof info === 'object' ? (Object.keys(info)[0] ?? null) : null;

/**
 * The login-ran-out error the rollout's last turn ended on, or null: it ended otherwise, a turn
 * runs after it, it is an old error (a person resumed long after), or its limit has reset since.
 * `since`: only an error written from then on counts (a conversation carried from a seat that ran
 * out still ends on that seat's error until its new turn begins).
 */
export function rolloutRanOut(text: string | null, now = Date.now(), since = 0): CodexRanOut | null {
  if (!text) return null;
  const lines = text.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const e = parse(lines[i]!);
    const p = e?.payload;
    const type = p?.['type'];
    if (!e || !p) continue;
    // A turn began after the last one ended (a Stop hook's read during a turn, a resumed session).
    if (type === 'task_started' || type === 'turn_started' || type === 'turn_aborted') return null;
    if (type !== 'task_complete' && type !== 'turn_complete' && type !== 'error') continue;
    const error = (type === 'error' ? p : p['error']) as Record<string, unknown> | null | undefined;
    if (!error || typeof error !== 'object' || infoName(error['codex_error_info']) !== 'usage_limit_exceeded')
      return null;
    const at = typeof e.timestamp === 'string' ? Date.parse(e.timestamp) : NaN;
    if (Number.isFinite(at) && (now - at > RECENT_MS || at < since)) return null;
    const message = typeof error['message'] === 'string' ? error['message'] : null;
    const out = classify(message, lines, i, now);
    return out.resetAt !== null && out.resetAt <= now ? null : out;
  }
  return null;
}

function classify(message: string | null, lines: string[], at: number, now: number): CodexRanOut {
  // Codex's words for the two that are not a plan's window (codex-rs protocol/src/error.rs).
  if (message && /^Quota exceeded\b/i.test(message)) return { why: 'billing_error', message, resetAt: null };
  if (message && /upgrade to Plus: /i.test(message) && !/hit your usage limit/i.test(message))
    return { why: 'usage_not_included', message, resetAt: null };
  return { why: 'usage_limit_reached', message, resetAt: windowReset(lines, at) ?? tryAgainAt(message, now) };
}

/**
 * The reset of the plan's window that ran out, from the `token_count` Codex wrote for the refused
 * request (the latest before the error): the windows at 100%, the last of their resets (both out:
 * nothing works before the later one).
 */
function windowReset(lines: string[], before: number): number | null {
  for (let i = before - 1; i >= 0; i--) {
    const p = parse(lines[i]!)?.payload;
    if (p?.['type'] === 'task_started' || p?.['type'] === 'turn_started') return null; // the turn's start: none
    if (p?.['type'] !== 'token_count') continue;
    const limits = p['rate_limits'] as Record<string, unknown> | null | undefined;
    if (!limits || typeof limits !== 'object') continue;
    const resets = ['primary', 'secondary']
      .map((k) => limits[k] as { used_percent?: unknown; resets_at?: unknown } | null | undefined)
      .filter((w) => w && typeof w.used_percent === 'number' && w.used_percent >= 100)
      .map((w) => (typeof w!.resets_at === 'number' && w!.resets_at > 0 ? w!.resets_at * 1000 : null))
      .filter((r): r is number => r !== null);
    return resets.length ? Math.max(...resets) : null;
  }
  return null;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/**
 * Codex's own words when no window says it: "Try again at 3:05 PM." (today) or "try again at Oct
 * 10th, 2026 11:21 AM.", in the local time of the machine Codex ran on (this one).
 */
function tryAgainAt(message: string | null, now: number): number | null {
  const m = /try again at (?:([A-Za-z]{3})[a-z]* (\d{1,2})(?:st|nd|rd|th)?, (\d{4}) )?(\d{1,2}):(\d{2}) ?(AM|PM)/i.exec(
    message ?? '',
  );
  if (!m) return null;
  let h = Number(m[4]) % 12;
  if (m[6]!.toUpperCase() === 'PM') h += 12;
  const today = new Date(now);
  const month = m[1] ? MONTHS.indexOf(m[1].toLowerCase()) : today.getMonth();
  if (month < 0) return null;
  const day = m[2] ? Number(m[2]) : today.getDate();
  const year = m[3] ? Number(m[3]) : today.getFullYear();
  return new Date(year, month, day, h, Number(m[5])).getTime();
}

/** The conversation id in a rollout's file name (rollout-2026-12-03T02-40-11-<uuid>.jsonl), or null. */
export function rolloutId(name: string): string | null {
  return /^rollout-.*-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/i.exec(name)?.[1] ?? null;
}

/**
 * The working directory a rollout's first record (session_meta) names, from the file's first bytes
 * (its instructions may run past them, so the line is not parsed whole), or null.
 */
export function rolloutCwd(text: string | null): string | null {
  const m = text ? /^\{[^\n]*?"type":"session_meta","payload":\{[^\n]*?"cwd":("(?:[^"\\\n]|\\.)*")/.exec(text) : null;
  if (!m) return null;
  try {
    return JSON.parse(m[1]!) as string;
  } catch {
    return null;
  }
}

/**
 * Whether a rollout's session_meta says it is not a conversation a person began: a sub-agent's
 * (Codex's `source` {"subagent": …}: a review, a compaction, a spawned thread, which writes its
 * own rollout in the same directory, often after its parent's) or Codex's own internal work
 * ({"internal": …}), or a `thread_source` other than "user". Codex's own `resume` lists only
 * interactive sources. A session_meta that names neither (older Codex) is taken as the user's.
 * Any thread_source but "user" is refused on purpose, values Codex may add later included: a
 * wrong refusal starts the agent afresh with a WARNING, a wrong guess resumes another thread
 * silently.
 */
export function rolloutNotUsers(text: string | null): boolean {
  const head = text ? /^\{[^\n]*?"type":"session_meta","payload":\{[^\n]*/.exec(text)?.[0] : undefined;
  if (!head) return false;
  if (/"source":\{"(?:subagent|internal)"/i.test(head)) return true;
  const thread = /"thread_source":"([^"\\]*)"/.exec(head)?.[1];
  return thread !== undefined && thread !== 'user';
}
