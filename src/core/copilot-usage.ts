// Agents' record formats read outside the adapters live in core: services read them too.
import { answered, asked, copyStreak, signature } from './fail-streak.js';
import type { FailStreak } from './fail-streak.js';
import { addTokens, count, noTokens } from './usage.js';
import type { Tokens, Usage } from './usage.js';

// A GitHub Copilot CLI session's record (1.0.102): $COPILOT_HOME/session-state/<session id>/
// events.jsonl, one event a line, appended as the session runs (a resumed session goes on in it).
// `session.usage_record` is written once per model call, sub-agents' included: data.usage's model,
// inputTokens (the cached ones among them: read and written), outputTokens, cacheReadTokens,
// cacheWriteTokens, and accounting.{sourceSessionId, sequence} (counted once each: a sequence at
// or below the last seen of its source is a repeat). Tool calls: `tool.execution_start`
// {toolCallId, toolName, arguments}, then `tool.execution_complete` {success, shellExecution:
// {exitCode}} (a shell command that exits non-zero is a success to Copilot; a failure here).
// The usage record is written 0.1–0.3 s after the call: a hook may see the last call late.

/** The last sequence counted per accounting source (a session and its resumed runs). */
export type CopilotSeen = Record<string, number>;

type Event = { type?: unknown; data?: Record<string, unknown> };

function parse(line: string): Event | null {
  try {
    return JSON.parse(line) as Event;
  } catch {
    return null;
  }
}

export function copilotUsage(lines: string[], into: Usage, seen: CopilotSeen): CopilotSeen {
  const out = { ...seen };
  for (const line of lines) {
    if (line.startsWith('{"type":"tool.execution_start"')) {
      into.toolCalls++;
      continue;
    }
    if (!line.startsWith('{"type":"session.usage_record"')) continue;
    const u = parse(line)?.data?.['usage'] as Record<string, unknown> | undefined;
    if (!u) continue;
    const acc = (u['accounting'] ?? {}) as { sourceSessionId?: unknown; sequence?: unknown };
    if (typeof acc.sequence === 'number') {
      const source = String(acc.sourceSessionId ?? '');
      if (acc.sequence <= (out[source] ?? 0)) continue;
      out[source] = acc.sequence;
    }
    const cacheRead = count(u['cacheReadTokens']);
    const cacheWrite = count(u['cacheWriteTokens']);
    const t: Tokens = {
      input: Math.max(0, count(u['inputTokens']) - cacheRead - cacheWrite),
      output: count(u['outputTokens']),
      cacheRead,
      cacheWrite,
    };
    const model = typeof u['model'] === 'string' ? u['model'] : 'unknown';
    addTokens(into, t);
    addTokens((into.byModel[model] ??= noTokens()), t);
  }
  return out;
}

export function copilotFailures(lines: string[], streak: FailStreak): FailStreak {
  const s = copyStreak(streak);
  for (const line of lines) {
    const start = line.startsWith('{"type":"tool.execution_start"');
    if (!start && !line.startsWith('{"type":"tool.execution_complete"')) continue;
    const d = parse(line)?.data;
    if (!d || typeof d['toolCallId'] !== 'string') continue;
    if (start) asked(s, d['toolCallId'], signature(d['toolName'], d['arguments']));
    else {
      const exit = (d['shellExecution'] as { exitCode?: unknown } | undefined)?.exitCode;
      answered(s, d['toolCallId'], d['success'] === false || (typeof exit === 'number' && exit !== 0));
    }
  }
  return s;
}
