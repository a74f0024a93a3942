// How a Gemini CLI run ended on its quota, from Gemini CLI's own record of the error. Gemini CLI
// 0.61 runs no hook on it: headless (`gemini -p`), a 429 ends the run before AfterAgent or
// SessionEnd (it exits 1, or 173 = 429 & 255 with --output-format json), and its chat record
// (tmp/<project>/chats/session-*.jsonl) keeps no error. What it keeps is the report it writes to its TMPDIR for an API error,
// gemini-client-error-Turn.run-sendMessageStream-<time>.json: {error: {message, stack}, context:
// the request's contents}. Its classification is the stack's first word: a TerminalQuotaError is
// a quota that will not come back by retrying now (a day's requests, a plan's capacity, a retry
// too far off), a RetryableQuotaError one Gemini CLI retries (never written there on its own). The
// context holds the session's project temp directory, under GEMINI_CLI_HOME: whose report it is.
//
// Signed in with Google, the Code Assist server's 429 for a login out of quota (ErrorInfo reason
// QUOTA_EXHAUSTED, domain cloudcode-pa.googleapis.com) is a TerminalQuotaError with the server's
// words, "Individual quota reached. … Resets in 9h22m20s." (reported as above, with Gemini CLI's
// "💡 Tip" about a Cloud project appended) — unless the words are "You have exhausted your capacity
// on this model. Your quota will reset after 2h52m39s.": retryWithBackoff takes those for a busy
// server and waits the reset out before trying again (silently, up to the RetryInfo delay: hours),
// reporting nothing. All it says is its debug log's line "Attempt 1 failed: <the words>. Retrying
// after 10355000ms...", on stderr and in GEMINI_DEBUG_LOG_FILE when set: lanes sets it.
// Read pure here (the caller reads the files: adapters never read the disk).

export interface GeminiRanOut {
  why: string;
  message: string | null;
  /** When Gemini CLI's words say it resets (ms since the epoch), or null. */
  resetAt: number | null;
}

/** The file names Gemini CLI gives the reports of a turn's API error, and when each was written. */
export function reportTime(name: string): number | null {
  const m =
    /^gemini-client-error-Turn\.run-sendMessageStream-(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})-(\d{3})Z\.json$/.exec(
      name,
    );
  return m ? Date.parse(`${m[1]}T${m[2]}:${m[3]}:${m[4]}.${m[5]}Z`) : null;
}

/**
 * The quota error a report holds, or null: another error, a quota Gemini CLI retries, a model
 * without capacity on the server's side, or a report of another login (`home`: the
 * GEMINI_CLI_HOME its context must name). `at`: when the report was written.
 */
export function reportRanOut(text: string | null, home: string, at: number): GeminiRanOut | null {
  if (!text || !text.includes(`${home.replace(/\/+$/, '')}/.gemini/`)) return null;
  const report = parse(text);
  if (!report) return null;
  const stack = typeof report.error?.stack === 'string' ? report.error.stack : '';
  if (!stack.startsWith('TerminalQuotaError')) return null;
  const message = typeof report.error?.message === 'string' ? withoutTip(report.error.message) : null;
  // The server out of capacity for a model is not this login's quota (its own words say which).
  if (SERVER_CAPACITY.test(message ?? '')) return null;
  return { why: 'quota_exhausted', message, resetAt: resetIn(message, at) };
}

const SERVER_CAPACITY = /no capacity available|MODEL_CAPACITY_EXHAUSTED/i;

/** Gemini CLI's own advice appended to a Google login's quota error (enrichQuotaError): not the server's words. */
const withoutTip = (message: string) => message.replace(/\s*💡 Tip:[\s\S]*$/u, '');

/**
 * Longest wait (ms) Gemini CLI's retries make of a quota that comes back soon (its
 * MAX_RETRYABLE_DELAY_SECONDS): a longer one is the login out until then.
 */
const RETRYABLE_MS = 300_000;

/**
 * A quota Gemini CLI is waiting out, from its debug log (GEMINI_DEBUG_LOG_FILE: `[ISO time]
 * [WARN] Attempt N failed: <message>. Retrying after <ms>ms...`), written at `since` (ms) or
 * later, or null: no such line, a wait of a few minutes at most (it retries now), or the server
 * out of capacity. The reset is the one its words name, else when Gemini CLI means to retry.
 */
export function debugLogRanOut(text: string | null, since: number): GeminiRanOut | null {
  let found: GeminiRanOut | null = null;
  // The message may run over lines (Gemini appends a Tip), never into the log's next entry (a line
  // that starts with a time): else an "Attempt failed" with no wait would take the lines after it,
  // the conversation among them, into the journal's message.
  const line =
    /^\[(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z)\] \[WARN\] Attempt \d+ failed: ((?:(?!\n\[\d{4}-\d{2}-\d{2}T)[\s\S])*?)\. Retrying after (\d+)ms\.\.\.$/gm;
  for (const [, time, words, wait] of (text ?? '').matchAll(line)) {
    const at = Date.parse(time!);
    const message = withoutTip(words!);
    if (!(at >= since) || Number(wait) <= RETRYABLE_MS || SERVER_CAPACITY.test(message)) continue;
    found = { why: 'quota_exhausted', message, resetAt: resetIn(message, at) ?? at + Number(wait) };
  }
  return found;
}

type Report = { error?: { message?: unknown; stack?: unknown } };

/**
 * The report, or its error alone when only its start was read (the conversation after it can be
 * long): Gemini CLI writes it with JSON.stringify(…, null, 2), the error first, then "context".
 */
function parse(text: string): Report | null {
  for (const json of [text, `${text.slice(0, text.indexOf(',\n  "context":'))}\n}`]) {
    try {
      return JSON.parse(json) as Report;
    } catch {
      // cut short, or being written: the next reading
    }
  }
  return null;
}

/**
 * "Please retry in 10828s." / "Suggested retry after 10828s." / "Your quota will reset after
 * 2h52m39s." / "Resets in 9h22m20s."
 */
function resetIn(message: string | null, at: number): number | null {
  const m = /(?:retry in|retry after|reset after|resets in)\s+((?:\d+(?:\.\d+)?\s*[hms]\s*)+)/i.exec(message ?? '');
  if (!m) return null;
  let ms = 0;
  for (const [, n, unit] of m[1]!.matchAll(/(\d+(?:\.\d+)?)\s*([hms])/gi))
    ms += Number(n) * (unit!.toLowerCase() === 'h' ? 3_600_000 : unit!.toLowerCase() === 'm' ? 60_000 : 1000);
  return ms > 0 ? at + Math.round(ms) : null;
}
