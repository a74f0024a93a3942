import { QUOTA_ERRORS } from '../claude-shaped.js';
import { resetFromText } from '../adapter.js';

// How a Claude Code session ended, from the end of its transcript (the SessionEnd payload's
// transcript_path, read by select.ts: adapters never read the disk).
// `claude -p` exits on an API error at once, and Claude Code does not wait for its StopFailure
// hooks (they are stopped with SIGTERM as it exits: seen with 2.1.332), but it waits for its
// SessionEnd hooks: at session end the transcript's last API error tells a login that ran out.
// Its line: {"type":"assistant","isApiErrorMessage":true,"error":"rate_limit","quotaLimits":
// {"resetsAt":<Unix s>,...},"message":{"content":[{"type":"text","text":"You've hit your ..."}]}}.

/** How much of the transcript's end is read (its last entries). */
export const TRANSCRIPT_TAIL = 256 * 1024;

export interface EndedOnQuota {
  why: string;
  message: string | null;
  resetAt: number | null;
}

/** An error older than this when the session ends was told at its time (StopFailure), not by this end. */
const RECENT_MS = 10 * 60_000;

/**
 * The quota error the session's last assistant entry is, or null: none, another error, no
 * transcript, an error from long before this end (a person sat on it, then quit), or a limit that
 * has reset since.
 */
export function endedOnQuota(text: string | null, now = Date.now()): EndedOnQuota | null {
  if (!text) return null;
  const lines = text.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!;
    if (!line.includes('"type":"assistant"')) continue;
    let entry: Record<string, unknown>;
    try {
      entry = JSON.parse(line) as Record<string, unknown>;
    } catch {
      continue;
    }
    if (entry['type'] !== 'assistant') continue;
    const error = entry['error'];
    if (entry['isApiErrorMessage'] !== true || typeof error !== 'string' || !QUOTA_ERRORS.includes(error)) return null;
    const content = (entry['message'] as { content?: { text?: unknown }[] } | undefined)?.content;
    const said = Array.isArray(content) ? content.map((c) => (typeof c.text === 'string' ? c.text : '')).join(' ') : '';
    const limits = entry['quotaLimits'] as { resetsAt?: unknown } | undefined;
    const resetsAt = typeof limits?.resetsAt === 'number' && limits.resetsAt > 0 ? limits.resetsAt * 1000 : null;
    const at = typeof entry['timestamp'] === 'string' ? Date.parse(entry['timestamp']) : NaN;
    if (Number.isFinite(at) && now - at > RECENT_MS) return null;
    const resetAt = resetsAt ?? resetFromText(said, now);
    return resetAt !== null && resetAt <= now ? null : { why: error, message: said || null, resetAt };
  }
  return null;
}
