import type { HookDecision, HookEvent } from '../../core/hook-event.js';
import type { AgentAdapter, Env, HookOutput, Payload } from '../adapter.js';
import {
  asEdit,
  asPrompt,
  asShell,
  asWaiting,
  badInput,
  baseEvent,
  cwdOf,
  json,
  lifecycle,
  oneLine,
  record,
  text,
} from '../adapter.js';

// Gemini CLI: BeforeTool/AfterTool with write_file and replace (tool_input.file_path) and
// run_shell_command (tool_input.command). A deny is {"decision":"deny","reason":…} on exit 0;
// stdout must hold only JSON, so an allow prints {}.
const EDIT_TOOLS = new Set(['write_file', 'replace']);

export const gemini: AgentAdapter = {
  name: 'gemini',
  events: ['session-start', 'before-tool', 'after-tool', 'after-agent', 'session-end', 'notification', 'before-agent'],
  parse(event: string, payload: Payload, env: Env): HookEvent {
    const id = text(payload, 'session_id') ?? env['GEMINI_SESSION_ID'];
    if (!id) throw badInput('gemini', 'the payload has no session_id');
    const cwd = cwdOf(payload);
    const e = baseEvent('gemini', 'ignore', id, cwd);
    const tool = text(payload, 'tool_name');
    const input = record(payload['tool_input']);
    e.toolName = tool;
    switch (event) {
      case 'session-start':
        return lifecycle(e, 'session-start', text(payload, 'source') ?? text(payload, 'trigger'));
      case 'session-end':
        return lifecycle(e, 'session-end', text(payload, 'reason') ?? text(payload, 'trigger'));
      case 'after-agent':
        lifecycle(e, 'stop');
        e.message = oneLine(text(payload, 'prompt_response'));
        return e;
      // Gemini's Notification is only ToolPermission, fired (and awaited) as its confirmation dialog opens.
      case 'notification':
        return text(payload, 'notification_type') === 'ToolPermission'
          ? asWaiting(e, text(payload, 'message') ?? 'a tool call waits for confirmation')
          : e;
      case 'before-agent':
        return asPrompt(e);
      case 'before-tool':
      case 'after-tool': {
        const post = event === 'after-tool';
        if (tool && EDIT_TOOLS.has(tool)) return asEdit(e, post, text(input, 'file_path'));
        return tool === 'run_shell_command' && !post ? asShell(e, text(input, 'command')) : e;
      }
      default:
        throw badInput('gemini', `unknown event ${JSON.stringify(event)}`);
    }
  },
  // What reaches Gemini's model (docs/hooks/reference.md): a BeforeTool deny's `reason` (as the
  // tool's error), SessionStart's and AfterTool's `hookSpecificOutput.additionalContext` (AfterTool:
  // appended to the tool result). BeforeTool has no context field: there a warning is only the
  // user's systemMessage, and the model gets it with the edit's result (post-edit, AfterTool).
  render(event: HookEvent, d: HookDecision): HookOutput {
    if (d.permission === 'deny') return json({ decision: 'deny', reason: d.reason }, d.notice);
    const message = d.notice ? { systemMessage: `lanes: ${d.notice}` } : {};
    if (d.context && (event.kind === 'session-start' || event.kind === 'post-edit')) {
      const hookEventName = event.kind === 'session-start' ? 'SessionStart' : 'AfterTool';
      return json({ hookSpecificOutput: { hookEventName, additionalContext: d.context }, ...message });
    }
    if (d.context && (event.kind === 'pre-edit' || event.kind === 'pre-shell')) return json(message);
    return json({}, d.notice);
  },
};
