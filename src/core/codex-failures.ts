// Agents' record formats read outside the adapters live in core: services read them too.
import { answered, asked, copyStreak, signature } from './fail-streak.js';
import type { FailStreak } from './fail-streak.js';

// Failing tool calls in a Codex rollout (0.171): a `response_item` asks (function_call with its
// name and arguments, custom_tool_call with its input, by call_id); the `item_completed` event of
// that id says how it ended (a CommandExecution's exit_code, any item's status failed/declined)
// and comes before the call's output item; the output (function_call_output, text such as
// "Process exited with code 1") answers a call no item_completed answered.

const ASKS = new Set(['function_call', 'custom_tool_call', 'local_shell_call']);
const OUTPUTS = new Set(['function_call_output', 'custom_tool_call_output']);
const FAILED = new Set(['failed', 'declined', 'error']);
const EXIT = /(?:Process exited with code|^Exit code:)\s*(-?\d+)/m;

type Payload = Record<string, unknown>;

function outputFailed(output: unknown): boolean {
  const text = typeof output === 'string' ? output : JSON.stringify(output ?? '');
  const exit = EXIT.exec(text);
  if (exit) return exit[1] !== '0';
  try {
    const o = JSON.parse(text) as { metadata?: { exit_code?: unknown }; success?: unknown };
    if (typeof o?.metadata?.exit_code === 'number') return o.metadata.exit_code !== 0;
    return o?.success === false;
  } catch {
    return false;
  }
}

export function codexFailures(lines: string[], streak: FailStreak): FailStreak {
  const s = copyStreak(streak);
  for (const line of lines) {
    if (!line.includes('_call') && !line.includes('"item_completed"')) continue;
    let e: { type?: unknown; payload?: Payload };
    try {
      e = JSON.parse(line) as typeof e;
    } catch {
      continue;
    }
    const p = e.payload ?? {};
    const id = p['call_id'];
    if (e.type === 'response_item' && typeof id === 'string') {
      if (ASKS.has(String(p['type'])))
        asked(s, id, signature(p['name'] ?? p['type'], p['arguments'] ?? p['input'] ?? p['action']));
      else if (OUTPUTS.has(String(p['type']))) answered(s, id, outputFailed(p['output']));
    } else if (e.type === 'event_msg' && p['type'] === 'item_completed') {
      const item = (p['item'] ?? {}) as Payload;
      if (typeof item['id'] !== 'string') continue;
      const exit = item['exit_code'];
      answered(s, item['id'], (typeof exit === 'number' && exit !== 0) || FAILED.has(String(item['status'])));
    }
  }
  return s;
}
