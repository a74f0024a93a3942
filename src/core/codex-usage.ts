// Agents' record formats read outside the adapters live in core (as gemini-chats.ts): services read them too.
import { count } from './usage.js';
import type { Tokens } from './usage.js';

// The tokens of a Codex session from its rollout (the hooks' transcript_path): each `token_count`
// event carries the thread's running total (`info.total_token_usage`: input_tokens with
// cached_input_tokens among them, cache_write_input_tokens, output_tokens with reasoning among
// them), and `thread_settings_applied` (0.171) or `turn_context` entries name the model. The last total is the session's (0.171).

export interface CodexTotal {
  model: string;
  tokens: Tokens;
  /** The tool calls of the rollout so far (function, custom tool and shell calls). */
  toolCalls: number;
}

const CALLS = new Set(['function_call', 'custom_tool_call', 'local_shell_call']);

export function codexUsage(lines: string[], last: CodexTotal | null): CodexTotal | null {
  let out = last;
  let model = last?.model ?? 'unknown';
  let calls = last?.toolCalls ?? 0;
  for (const line of lines) {
    if (
      !line.includes('"token_count"') &&
      !line.includes('"turn_context"') &&
      !line.includes('"thread_settings') &&
      !line.includes('_call"')
    )
      continue;
    let e: { type?: unknown; payload?: Record<string, unknown> };
    try {
      e = JSON.parse(line) as typeof e;
    } catch {
      continue;
    }
    const p = e.payload;
    if (e.type === 'turn_context' && typeof p?.['model'] === 'string') model = p['model'];
    const settings =
      p?.['type'] === 'thread_settings_applied' ? (p['thread_settings'] as Record<string, unknown>) : null;
    if (typeof settings?.['model'] === 'string') model = settings['model'];
    if (e.type === 'response_item' && CALLS.has(String(p?.['type']))) {
      calls++;
      continue;
    }
    if (p?.['type'] !== 'token_count') continue;
    const total = (p['info'] as { total_token_usage?: Record<string, unknown> } | null)?.total_token_usage;
    if (!total) continue;
    const cached = count(total['cached_input_tokens']);
    out = {
      model,
      toolCalls: calls,
      tokens: {
        input: Math.max(0, count(total['input_tokens']) - cached),
        output: count(total['output_tokens']),
        cacheRead: cached,
        cacheWrite: count(total['cache_write_input_tokens']),
      },
    };
  }
  if (!out)
    return calls ? { model, toolCalls: calls, tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } } : null;
  return { ...out, toolCalls: calls, model: out.model === 'unknown' ? model : out.model };
}
