import type { HookDecision, HookEvent } from '../../core/hook-event.js';
import type { AgentAdapter, Env, HookOutput, Payload } from '../adapter.js';
import {
  absolute,
  asEdit,
  asPrompt,
  asShell,
  asWaiting,
  badInput,
  baseEvent,
  cwdOf,
  json,
  lifecycle,
  pidFrom,
  record,
  sessionEnv,
  text,
} from '../adapter.js';
import { patchTargets } from '../apply-patch.js';

// OpenCode has no hook commands: its plugins (JS modules it loads from .opencode/plugins/ and
// ~/.config/opencode/plugins/) get hooks. lanes' plugin (./plugin.ts) forwards each one to
// `lanes hook opencode EVENT` with OpenCode's hook input on stdin, flattened: the `input` of
// tool.execute.before/after ({tool, sessionID, callID}) with `output.args` as `args`; for the
// session events the session's id; always the plugin's `directory` and OpenCode's own `pid`.
// EVENT is the OpenCode hook or bus event: tool.execute.before, tool.execute.after,
// session.created (also sent, source "resumed", for the first model call of a session it did not
// see created), session.idle, session.deleted, and exit (OpenCode's process is exiting).
// Tools (OpenCode's built-ins): edit, write, multiedit (args.filePath, relative to the directory
// when not absolute); patch and apply_patch (args.patchText, the Codex envelope); bash (args.command).
const EDIT_TOOLS = new Set(['edit', 'write', 'multiedit']);
const PATCH_TOOLS = new Set(['patch', 'apply_patch']);

/**
 * The session's own record (what it spent is read there: services/spend/opencode-reader.ts):
 * OpenCode's database, where OpenCode itself looks for it ($OPENCODE_DB, else
 * $XDG_DATA_HOME/opencode/opencode.db, else ~/.local/share/…), and the session's id: `DB#ID`.
 */
function recordOf(env: Env, id: string): string | null {
  const given = env['OPENCODE_DB'];
  const data = env['XDG_DATA_HOME'] || (env['HOME'] ? `${env['HOME']}/.local/share` : '');
  const db = given?.startsWith('/')
    ? given
    : data.startsWith('/')
      ? `${data}/opencode/${given || 'opencode.db'}`
      : null;
  return db && /^[\w.-]+$/.test(id) ? `${db}#${id}` : null;
}

export const opencode: AgentAdapter = {
  name: 'opencode',
  events: [
    'session.created',
    'tool.execute.before',
    'tool.execute.after',
    'session.idle',
    'session.deleted',
    'exit',
    'permission.asked',
    'question.asked',
    'session.error',
    'chat.message',
  ],
  parse(event: string, payload: Payload, env: Env): HookEvent {
    const id = text(payload, 'sessionID');
    if (!id) throw badInput('opencode', 'the payload has no sessionID');
    const e = baseEvent('opencode', 'ignore', id, cwdOf({ cwd: payload['directory'] }));
    e.agentPid = typeof payload['pid'] === 'number' ? pidFrom(String(payload['pid'])) : null;
    const tool = text(payload, 'tool');
    const args = record(payload['args']);
    e.toolName = tool;
    switch (event) {
      case 'session.created':
        e.record = recordOf(env, id);
        return lifecycle(e, 'session-start', text(payload, 'source') ?? 'created');
      case 'session.idle':
        e.record = recordOf(env, id);
        return lifecycle(e, 'stop', payload['afterError'] === true ? 'error' : null);
      // permission.asked (permission.updated before 1.x): a permission prompt; question.asked: the question tool.
      case 'permission.asked':
        return asWaiting(
          e,
          `permission asked${text(payload, 'permission') ? ` for ${text(payload, 'permission')}` : ''}`,
        );
      case 'question.asked':
        return asWaiting(e, 'a question waits for an answer');
      case 'session.error':
        return asWaiting(
          e,
          `the session stopped on an error${text(payload, 'error') ? `: ${text(payload, 'error')}` : ''}`,
        );
      case 'chat.message':
        return asPrompt(e);
      case 'session.deleted':
        return lifecycle(e, 'session-end', 'deleted');
      case 'exit':
        return lifecycle(e, 'session-end', 'opencode exited');
      case 'tool.execute.before':
      case 'tool.execute.after': {
        const post = event === 'tool.execute.after';
        if (tool && EDIT_TOOLS.has(tool)) return asEdit(e, post, text(args, 'filePath'));
        if (tool && PATCH_TOOLS.has(tool)) {
          const patch = text(args, 'patchText');
          if (!patch) throw badInput('opencode', `${tool} without args.patchText`);
          e.kind = post ? 'post-edit' : 'pre-edit';
          e.paths = [...new Set(patchTargets(patch).map((t) => absolute(e.cwd, t.path)))];
          return e;
        }
        return tool === 'bash' && !post ? asShell(e, text(args, 'command')) : e;
      }
      default:
        throw badInput('opencode', `unknown event ${JSON.stringify(event)}`);
    }
  },
  render: renderOpencode,
};

/**
 * The answer lanes' plugin acts on: `block` (the plugin throws it from tool.execute.before: OpenCode
 * fails the tool call with that error, which is the tool result its model reads), `context` (a
 * session's briefing: the plugin adds it to the system prompt of that session's model calls, the
 * experimental.chat.system.transform hook; after a tool: appended to the tool's output, which the
 * model reads), and `env` (added to the session's shell commands, the shell.env hook). Before a
 * tool, OpenCode has no field for context: a warning reaches the model after the edit (post-edit
 * gives it again), as with Gemini. The notice is the plugin's stderr, which it drops.
 */
function renderOpencode(event: HookEvent, d: HookDecision): HookOutput {
  if (d.permission === 'deny') return json({ block: d.reason }, d.notice);
  if (event.kind === 'session-start' && d.context)
    return json({ context: d.context, ...sessionEnv(event, d) }, d.notice);
  if (event.kind === 'post-edit' && d.context) return json({ context: d.context }, d.notice);
  return json({}, d.notice);
}
