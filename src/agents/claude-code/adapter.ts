import type { HookDecision, HookEvent } from '../../core/hook-event.js';
import type { AgentAdapter, Env, HookOutput, Payload } from '../adapter.js';
import { SILENT, asEdit, asShell, badInput, baseEvent, cwdOf, json, lifecycle, pidFrom, record, text, workspaceRoots } from '../adapter.js';
import { cursorSessionId, isCursorPayload } from '../cursor/adapter.js';
import { cursorHooksInstalled } from '../cursor/detect.js';

// Claude Code: edits arrive as Edit/Write/MultiEdit (tool_input.file_path) and NotebookEdit
// (notebook_path), shell commands as Bash. A deny is exit 0 with hookSpecificOutput (exit 2 would
// also block, but the JSON carries the reason to the model reliably).
export const EDIT_TOOLS = new Set(['Edit', 'Write', 'MultiEdit', 'NotebookEdit']);

export const claudeCode: AgentAdapter = {
  name: 'claude-code',
  events: ['session-start', 'pre-tool-use', 'post-tool-use', 'stop', 'session-end'],
  parse(event: string, payload: Payload, env: Env): HookEvent {
    if (isCursorPayload(payload)) {
      // Cursor running Claude Code's hooks: act as the Cursor session, or not at all when lanes'
      // Cursor hooks will see the same event.
      const id = cursorSessionId(payload);
      if (!id) throw badInput('claude-code', 'a Cursor payload without conversation_id');
      const roots = workspaceRoots(payload);
      const cwd = cwdOf(payload, roots[0]);
      if (cursorHooksInstalled(roots.length > 0 ? roots : [cwd])) return baseEvent('cursor', 'ignore', id, cwd);
      return claudeShaped('cursor', id, event, { ...payload, cwd });
    }
    const id = text(payload, 'session_id') ?? env['CLAUDE_CODE_SESSION_ID'];
    if (!id) throw badInput('claude-code', 'the payload has no session_id');
    const e = claudeShaped('claude-code', id, event, payload);
    // Claude Code's own environment: its pid, and the file whose exports reach its shell commands.
    e.agentPid = pidFrom(env['CLAUDE_PID']);
    if (e.kind === 'session-start') e.envFile = env['CLAUDE_ENV_FILE'] || null;
    return e;
  },
  render: renderClaudeShaped,
};

/**
 * Claude Code's payload shape, shared with Codex (same field names) and with Cursor when Cursor
 * runs Claude Code's hooks.
 */
export function claudeShaped(agent: HookEvent['agent'], id: string, event: string, payload: Payload): HookEvent {
  const cwd = cwdOf(payload);
  const tool = text(payload, 'tool_name');
  const input = record(payload['tool_input']);
  const e = baseEvent(agent, 'ignore', id, cwd);
  e.toolName = tool;
  switch (event) {
    case 'session-start':
      return lifecycle(e, 'session-start', text(payload, 'source'));
    case 'session-end':
      return lifecycle(e, 'session-end', text(payload, 'reason'));
    case 'stop':
      return lifecycle(e, 'stop');
    case 'pre-tool-use':
    case 'post-tool-use': {
      const post = event === 'post-tool-use';
      if (tool && EDIT_TOOLS.has(tool)) return asEdit(e, post, text(input, 'file_path') ?? text(input, 'notebook_path'));
      return tool === 'Bash' && !post ? asShell(e, text(input, 'command')) : e;
    }
    default:
      throw badInput(agent, `unknown event ${JSON.stringify(event)}`);
  }
}

export function renderClaudeShaped(event: HookEvent, d: HookDecision): HookOutput {
  if (event.kind === 'pre-edit' || event.kind === 'pre-shell') {
    if (d.permission === 'deny') {
      return json({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: d.reason } }, d.notice);
    }
    // A warning adds context and decides nothing: "allow" here would skip the user's own permission prompts.
    if (d.context) return json({ hookSpecificOutput: { hookEventName: 'PreToolUse', additionalContext: d.context }, ...(d.notice ? { systemMessage: `lanes: ${d.notice}` } : {}) });
    return SILENT;
  }
  if (event.kind === 'session-start' && d.context) return json({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: d.context } });
  return d.notice ? { ...SILENT, stderr: `lanes: ${d.notice}\n` } : SILENT;
}
