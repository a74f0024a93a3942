import type { AgentName, HookDecision, HookEvent } from '../core/hook-event.js';
import type { HookOutput, Payload } from './adapter.js';
import {
  SILENT,
  asEdit,
  asPrompt,
  asShell,
  asQuota,
  asWaiting,
  badInput,
  baseEvent,
  cwdOf,
  json,
  lifecycle,
  oneLine,
  record,
  resetFromText,
  text,
} from './adapter.js';

// Claude Code's hook payload and output shape, shared by every caller that speaks it: Claude Code
// itself, Codex (the same field names and output format), and Cursor when it runs Claude Code's
// hooks. Edits arrive as Edit/Write/MultiEdit (tool_input.file_path) and NotebookEdit
// (notebook_path), shell commands as Bash. A deny is exit 0 with hookSpecificOutput (exit 2 would
// also block, but the JSON carries the reason to the model reliably).
const EDIT_TOOLS = new Set(['Edit', 'Write', 'MultiEdit', 'NotebookEdit']);
/**
 * Claude Code's Notification types that mean its person is wanted (hooks reference): a permission
 * dialog, 60 s idle at the prompt, an MCP server's question, a background agent needing input.
 * Others (auth_success, agent_completed) are not a wait.
 */
export const WAITING_NOTIFICATIONS = ['permission_prompt', 'idle_prompt', 'elicitation_dialog', 'agent_needs_input'];

/** StopFailure's error types that mean the login ran out (the seat is exhausted until its reset). */
/** The errors that mean the login ran out (a rate_limit only when its words say so: loginRanOut). */
export const QUOTA_ERRORS = ['rate_limit', 'billing_error'];

// Claude Code's words for a passing 429 ("Request rejected (429) - this may be a temporary capacity
// issue"), also sent as rate_limit: the login did not run out, the request is only to be tried again.
const PASSING = /temporar|capacity|overloaded|try again/i;
const RAN_OUT = /hit your .*limit|usage limit|limit reached|limit will reset|spend limit|credit|resets?\b/i;

/** A billing error always; a rate limit unless its words say it was passing (with no words: it ran out). */
export function loginRanOut(kind: string, detail: string | null): boolean {
  if (kind === 'billing_error') return true;
  if (kind !== 'rate_limit') return false;
  return !detail || RAN_OUT.test(detail) || !PASSING.test(detail);
}

export function parseClaudeShaped(agent: AgentName, id: string, event: string, payload: Payload): HookEvent {
  const cwd = cwdOf(payload);
  const tool = text(payload, 'tool_name');
  const input = record(payload['tool_input']);
  const e = baseEvent(agent, 'ignore', id, cwd);
  e.toolName = tool;
  // Claude Code names the subagent a call comes from (absent in the session's own thread).
  e.subagent = text(payload, 'agent_id');
  switch (event) {
    case 'subagent-stop':
      return lifecycle(e, 'subagent-stop');
    case 'session-start':
      return lifecycle(e, 'session-start', text(payload, 'source'));
    case 'session-end':
      return lifecycle(e, 'session-end', text(payload, 'reason'));
    case 'stop': {
      lifecycle(e, 'stop');
      e.message = oneLine(text(payload, 'last_assistant_message'));
      return e;
    }
    case 'notification': {
      const type = text(payload, 'notification_type');
      return type && WAITING_NOTIFICATIONS.includes(type) ? asWaiting(e, text(payload, 'message') ?? type) : e;
    }
    case 'stop-failure': {
      // The turn ended on an API error: the agent sits idle until its person acts. Claude Code
      // 2.1 sends `error` (rate_limit, billing_error, overloaded, ...), its words in
      // `last_assistant_message` ("You've hit your 5-hour limit - resets 11:35pm (UTC)") and
      // `error_details` at times; error_type/error_message are read too (other senders of this shape).
      const kind = text(payload, 'error_type') ?? text(payload, 'error') ?? 'an error';
      const said = ['error_message', 'last_assistant_message', 'error_details'].map((k) => text(payload, k));
      const detail = [...new Set(said.filter((w): w is string => !!w))].join(' - ') || null;
      const reset = said.map((w) => resetFromText(w)).find((r) => r !== null) ?? null;
      if (loginRanOut(kind, detail)) return asQuota(e, kind, detail, reset);
      return asWaiting(e, `the turn stopped on ${kind}${detail ? `: ${detail}` : ''}`);
    }
    case 'user-prompt-submit':
      return asPrompt(e);
    case 'pre-tool-use':
    case 'post-tool-use': {
      const post = event === 'post-tool-use';
      if (tool && EDIT_TOOLS.has(tool))
        return asEdit(e, post, text(input, 'file_path') ?? text(input, 'notebook_path'));
      return tool === 'Bash' && !post ? asShell(e, text(input, 'command')) : e;
    }
    default:
      throw badInput(agent, `unknown event ${JSON.stringify(event)}`);
  }
}

export function renderClaudeShaped(event: HookEvent, d: HookDecision): HookOutput {
  if (event.kind === 'pre-edit' || event.kind === 'pre-shell') {
    if (d.permission === 'deny') {
      return json(
        {
          hookSpecificOutput: {
            hookEventName: 'PreToolUse',
            permissionDecision: 'deny',
            permissionDecisionReason: d.reason,
          },
        },
        d.notice,
      );
    }
    // A warning adds context and decides nothing: "allow" here would skip the user's own permission prompts.
    if (d.context)
      return json({
        hookSpecificOutput: { hookEventName: 'PreToolUse', additionalContext: d.context },
        ...(d.notice ? { systemMessage: `lanes: ${d.notice}` } : {}),
      });
    return SILENT;
  }
  // A person's message for the next turn (lanes tell): Claude Code adds it to the prompt's context.
  if (event.kind === 'prompt' && event.agent === 'claude-code' && d.context)
    return json({ hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: d.context } });
  // The context is the model's; a notice (lanes cannot protect this session, …) is the person's.
  if (event.kind === 'session-start' && d.context)
    return json({
      hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: d.context },
      ...(d.notice ? { systemMessage: `lanes: ${d.notice}` } : {}),
    });
  return d.notice ? { ...SILENT, stderr: `lanes: ${d.notice}\n` } : SILENT;
}
