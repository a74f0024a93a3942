// Agents' record formats read outside the adapters live in core: services read them too.
import { answered, asked, copyStreak, signature } from './fail-streak.js';
import type { FailStreak } from './fail-streak.js';

// Failing tool calls in a Claude Code transcript: an assistant entry's tool_use block (its name and
// input), then the user entry's tool_result for its id with is_error true.

type Block = {
  type?: unknown;
  id?: unknown;
  name?: unknown;
  input?: unknown;
  tool_use_id?: unknown;
  is_error?: unknown;
};

export function claudeFailures(lines: string[], streak: FailStreak): FailStreak {
  const s = copyStreak(streak);
  for (const line of lines) {
    if (!line.includes('"tool_use"') && !line.includes('"tool_result"')) continue;
    let e: { type?: unknown; message?: { content?: unknown } };
    try {
      e = JSON.parse(line) as typeof e;
    } catch {
      continue;
    }
    const blocks = Array.isArray(e.message?.content) ? (e.message.content as Block[]) : [];
    for (const b of blocks) {
      if (e.type === 'assistant' && b?.type === 'tool_use' && typeof b.id === 'string')
        asked(s, b.id, signature(b.name, b.input));
      if (e.type === 'user' && b?.type === 'tool_result' && typeof b.tool_use_id === 'string')
        answered(s, b.tool_use_id, b.is_error === true);
    }
  }
  return s;
}
