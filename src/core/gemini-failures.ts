// Agents' record formats read outside the adapters live in core: services read them too.
import { answered, asked, copyStreak, signature } from './fail-streak.js';
import type { FailStreak } from './fail-streak.js';

// Failing tool calls in a Gemini CLI chat record (0.61.0): a model message's `toolCalls` (id, name,
// args, status, result), the message written again as it grows. A call is answered once its status
// is final: `error` or `cancelled` failed, `success` did not — except a shell command whose
// result says it exited non-zero ("Exit Code: 1": Gemini reports that as a success).

const FINAL = new Set(['success', 'error', 'cancelled']);
const EXIT = /Exit Code: (-?\d+)/;

interface Call {
  id?: unknown;
  name?: unknown;
  args?: unknown;
  status?: unknown;
  result?: unknown;
}

export function geminiFailures(lines: string[], streak: FailStreak): FailStreak {
  const s = copyStreak(streak);
  for (const line of lines) {
    if (!line.includes('"toolCalls"')) continue;
    let m: { type?: unknown; toolCalls?: unknown };
    try {
      m = JSON.parse(line) as typeof m;
    } catch {
      continue;
    }
    if (m.type !== 'gemini' || !Array.isArray(m.toolCalls)) continue;
    for (const c of m.toolCalls as Call[]) {
      if (typeof c?.id !== 'string') continue;
      asked(s, c.id, signature(c.name, c.args));
      if (!FINAL.has(String(c.status))) continue;
      const exit = c.status === 'success' ? EXIT.exec(JSON.stringify(c.result ?? '')) : null;
      answered(s, c.id, c.status !== 'success' || (exit !== null && exit[1] !== '0'));
    }
  }
  return s;
}
