import type { HookDecision, HookEvent } from '../../core/hook-event.js';
import type { AgentAdapter, Env, HookOutput, Payload } from '../adapter.js';
import { absolute, badInput, baseEvent, cwdOf, json, record, text } from '../adapter.js';

// Gemini CLI: BeforeTool/AfterTool with write_file and replace (tool_input.file_path) and
// run_shell_command (tool_input.command). A deny is {"decision":"deny","reason":…} on exit 0;
// stdout must hold only JSON, so an allow prints {}.
const EDIT_TOOLS = new Set(['write_file', 'replace']);

export const gemini: AgentAdapter = {
  name: 'gemini',
  events: ['session-start', 'before-tool', 'after-tool', 'after-agent', 'session-end'],
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
        e.kind = 'session-start';
        e.source = text(payload, 'source') ?? text(payload, 'trigger');
        return e;
      case 'session-end':
        e.kind = 'session-end';
        e.source = text(payload, 'reason') ?? text(payload, 'trigger');
        return e;
      case 'after-agent':
        e.kind = 'stop';
        return e;
      case 'before-tool':
      case 'after-tool': {
        const post = event === 'after-tool';
        if (tool && EDIT_TOOLS.has(tool)) {
          const path = text(input, 'file_path');
          if (!path) throw badInput('gemini', `${tool} without tool_input.file_path`);
          e.kind = post ? 'post-edit' : 'pre-edit';
          e.paths = [absolute(cwd, path)];
        } else if (tool === 'run_shell_command' && !post) {
          const command = text(input, 'command');
          if (command) {
            e.kind = 'pre-shell';
            e.command = command;
          }
        }
        return e;
      }
      default:
        throw badInput('gemini', `unknown event ${JSON.stringify(event)}`);
    }
  },
  render(event: HookEvent, d: HookDecision): HookOutput {
    if (d.permission === 'deny') return json({ decision: 'deny', reason: d.reason }, d.notice);
    const eventName = event.kind === 'session-start' ? 'SessionStart' : 'BeforeTool';
    if (d.context && (event.kind === 'session-start' || event.kind === 'pre-edit' || event.kind === 'pre-shell')) {
      return json({ hookSpecificOutput: { hookEventName: eventName, additionalContext: d.context }, ...(d.notice ? { systemMessage: `lanes: ${d.notice}` } : {}) });
    }
    return json({}, d.notice);
  },
};
