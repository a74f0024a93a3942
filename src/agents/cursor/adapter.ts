import type { HookDecision, HookEvent } from '../../core/hook-event.js';
import type { AgentAdapter, Env, HookOutput, Payload } from '../adapter.js';
import {
  SILENT,
  asEdit,
  asShell,
  badInput,
  baseEvent,
  cwdOf,
  json,
  lifecycle,
  record,
  sessionEnv,
  text,
  workspaceRoots,
} from '../adapter.js';

// Cursor: a flat hooks.json; the session is `conversation_id`; the working directory is `cwd` or
// the first workspace root. Edits: preToolUse with tool Write (tool_input.file_path) and
// afterFileEdit (file_path); shell: beforeShellExecution or preToolUse with tool Shell.
// A deny is {"permission":"deny","agent_message":…,"user_message":…}.
const EDIT_TOOLS = new Set(['Write', 'Edit', 'StrReplace', 'MultiEdit', 'Delete']);

export const cursor: AgentAdapter = {
  name: 'cursor',
  events: ['session-start', 'pre-tool-use', 'before-shell-execution', 'after-file-edit', 'stop', 'session-end'],
  parse(event: string, payload: Payload, _env: Env): HookEvent {
    const id = cursorSessionId(payload);
    if (!id) throw badInput('cursor', 'the payload has no conversation_id');
    const roots = workspaceRoots(payload);
    const cwd = cwdOf(payload, roots[0]);
    const e = baseEvent('cursor', 'ignore', id, cwd);
    const tool = text(payload, 'tool_name');
    const input = record(payload['tool_input']);
    e.toolName = tool;
    switch (event) {
      case 'session-start':
        return lifecycle(e, 'session-start', text(payload, 'composer_mode'));
      case 'session-end':
        return lifecycle(e, 'session-end', text(payload, 'reason'));
      // Cursor has no event for a wait on its person; a turn that ended on an error leaves it idle.
      case 'stop':
        if (text(payload, 'status') !== 'error') return lifecycle(e, 'stop');
        lifecycle(e, 'stop', 'error');
        e.message = 'the turn stopped on an error';
        return e;
      case 'after-file-edit':
        return asEdit(e, true, text(payload, 'file_path'));
      case 'before-shell-execution':
        return asShell(e, text(payload, 'command'));
      case 'pre-tool-use':
        if (tool && EDIT_TOOLS.has(tool)) return asEdit(e, false, text(input, 'file_path') ?? text(input, 'path'));
        return tool === 'Shell' ? asShell(e, text(input, 'command')) : e;
      default:
        throw badInput('cursor', `unknown event ${JSON.stringify(event)}`);
    }
  },
  render: renderCursor,
};

/**
 * Cursor's answer. Its preToolUse runner forwards `permission`, `user_message`, `updated_input` and
 * `additional_context`, and gives the model the `user_message` of a deny: so a deny's reason (the
 * holder and what to do instead) is the user_message too (agent_message kept for the
 * beforeShellExecution contract), and a warning is `additional_context`.
 */
export function renderCursor(event: HookEvent, d: HookDecision): HookOutput {
  if (d.permission === 'deny')
    return json({ permission: 'deny', user_message: d.reason, agent_message: d.reason }, d.notice);
  // sessionStart's `env` reaches the session's later shell commands: LANES_SESSION then names the
  // session the hooks registered (the acting-session rule finds it by lineage too).
  if (event.kind === 'session-start')
    return json({ ...(d.context ? { additional_context: d.context } : {}), ...sessionEnv(event, d) }, d.notice);
  // A warning informs the agent and decides nothing (no "permission" key: Cursor's own approval rules stay in charge).
  if (d.context && (event.kind === 'pre-edit' || event.kind === 'pre-shell'))
    return json({ additional_context: d.context }, d.notice);
  return d.notice ? { ...SILENT, stderr: `lanes: ${d.notice}\n` } : SILENT;
}

/** Cursor's session: conversation_id (session_id in newer payloads is the same value). */
export function cursorSessionId(payload: Payload): string | null {
  return text(payload, 'conversation_id') ?? text(payload, 'session_id');
}

/** Cursor runs Claude Code's hooks too; its payloads say so with these fields. */
export function isCursorPayload(payload: Payload): boolean {
  return typeof payload['cursor_version'] === 'string' || typeof payload['conversation_id'] === 'string';
}
