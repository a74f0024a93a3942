// Agents' record formats read outside the adapters live in core (as gemini-chats.ts): services read them too.
import { addTokens, count, noTokens } from './usage.js';
import type { Tokens, Usage } from './usage.js';

// The tokens of a Claude Code session from its transcript (the hooks' transcript_path): each
// assistant entry carries its API message's `usage` (input_tokens, output_tokens,
// cache_creation_input_tokens, cache_read_input_tokens) and `model`. One message is written as
// several entries (one per content block), each with the message's id and its usage: a message is
// counted once, with the usage of its last entry. Read in pieces (spend/spend.ts): `carry` is the
// message the last piece ended in, not yet counted.

export interface ClaudeCarry {
  id: string;
  model: string;
  tokens: Tokens;
}

export function claudeUsage(lines: string[], into: Usage, carry: ClaudeCarry | null): ClaudeCarry | null {
  let open = carry;
  const close = () => {
    if (!open) return;
    addTokens(into, open.tokens);
    addTokens((into.byModel[open.model] ??= noTokens()), open.tokens);
    open = null;
  };
  for (const line of lines) {
    if (!line.includes('"usage"')) continue;
    let e: { type?: unknown; message?: { id?: unknown; model?: unknown; usage?: Record<string, unknown> } };
    try {
      e = JSON.parse(line) as typeof e;
    } catch {
      continue;
    }
    const m = e.message;
    if (e.type !== 'assistant' || !m?.usage || typeof m.id !== 'string') continue;
    // Each entry holds its own content blocks (one, or all of the message): tool calls add up.
    const blocks = (m as { content?: unknown }).content;
    if (Array.isArray(blocks))
      into.toolCalls += blocks.filter((b) => (b as { type?: unknown })?.type === 'tool_use').length;
    const u = m.usage;
    const tokens = {
      input: count(u['input_tokens']),
      output: count(u['output_tokens']),
      cacheRead: count(u['cache_read_input_tokens']),
      cacheWrite: count(u['cache_creation_input_tokens']),
    };
    // Claude Code's own error entries (model "<synthetic>") cost nothing.
    const model = typeof m.model === 'string' ? m.model : 'unknown';
    if (open && open.id !== m.id) close();
    open = { id: m.id, model, tokens };
  }
  return open;
}

/** Everything counted, the open message included (what the session used so far). */
export function withCarry(u: Usage, carry: ClaudeCarry | null): Usage {
  if (!carry) return u;
  const out: Usage = {
    ...u,
    toolCalls: u.toolCalls,
    byModel: Object.fromEntries(Object.entries(u.byModel).map(([k, t]) => [k, { ...t }])),
  };
  addTokens(out, carry.tokens);
  addTokens((out.byModel[carry.model] ??= noTokens()), carry.tokens);
  return out;
}
