// Agents' record formats read outside the adapters live in core (as gemini-chats.ts): services read them too.
import { addTokens, count, noTokens } from './usage.js';
import type { Tokens, Usage } from './usage.js';

// The tokens of a Gemini CLI session from its chat record (the hooks' transcript_path; 0.61.0's
// ChatRecordingService, read from its bundle): a JSON line per message record, written again with
// the same id as it grows (its tokens recorded once the response's usageMetadata came, its tool
// calls added), and `{"$set": …}` lines for the chat's metadata. A model message (`type: "gemini"`)
// holds `tokens: {input, output, cached, thoughts, tool, total}` (promptTokenCount with the cached
// part in it, candidatesTokenCount, …), `model` and `toolCalls`. Each message counts once, as last
// written: the recent ones stay open (a rewrite comes soon after), older ones are closed into the sum.

export interface GeminiOpen {
  id: string;
  model: string;
  tokens: Tokens;
  toolCalls: number;
}

const OPEN = 32;

export function geminiUsage(lines: string[], into: Usage, open: GeminiOpen[]): GeminiOpen[] {
  const out = [...open];
  const close = (m: GeminiOpen) => {
    addTokens(into, m.tokens);
    addTokens((into.byModel[m.model] ??= noTokens()), m.tokens);
    into.toolCalls += m.toolCalls;
  };
  for (const line of lines) {
    if (!line.includes('"gemini"')) continue;
    let m: { id?: unknown; type?: unknown; model?: unknown; tokens?: Record<string, unknown>; toolCalls?: unknown };
    try {
      m = JSON.parse(line) as typeof m;
    } catch {
      continue;
    }
    if (m.type !== 'gemini' || typeof m.id !== 'string') continue;
    const t = m.tokens ?? {};
    const cached = count(t['cached']);
    const record: GeminiOpen = {
      id: m.id,
      model: typeof m.model === 'string' ? m.model : 'unknown',
      tokens: {
        input: Math.max(0, count(t['input']) - cached),
        output: count(t['output']) + count(t['thoughts']),
        cacheRead: cached,
        cacheWrite: 0,
      },
      toolCalls: Array.isArray(m.toolCalls) ? m.toolCalls.length : 0,
    };
    const at = out.findIndex((x) => x.id === m.id);
    if (at >= 0) out.splice(at, 1);
    out.push(record);
    if (out.length > OPEN) close(out.shift()!);
  }
  return out;
}

/** Everything counted, the open messages included. */
export function withOpen(u: Usage, open: GeminiOpen[]): Usage {
  const out: Usage = {
    ...u,
    byModel: Object.fromEntries(Object.entries(u.byModel).map(([k, t]) => [k, { ...t }])),
  };
  for (const m of open) {
    addTokens(out, m.tokens);
    addTokens((out.byModel[m.model] ??= noTokens()), m.tokens);
    out.toolCalls += m.toolCalls;
  }
  return out;
}
