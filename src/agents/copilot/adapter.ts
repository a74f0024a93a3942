import type { HookDecision, HookEvent } from '../../core/hook-event.js';
import type { AgentAdapter, Env, HookOutput, Payload } from '../adapter.js';
import {
  SILENT,
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
  record,
  text,
} from '../adapter.js';
import { patchTargets } from '../apply-patch.js';

// GitHub Copilot CLI: hooks in .github/hooks/*.json (version 1), events named in camelCase, so
// payloads in camelCase (docs.github.com, "GitHub Copilot CLI hooks reference": sessionId,
// timestamp, cwd; tool events add toolName and toolArgs). toolArgs is a JSON *string* in the
// older "Hooks configuration" reference and `unknown` (an object) in the CLI hooks reference:
// both are read. The PascalCase (VS Code compatible) spelling — session_id, tool_name,
// tool_input — is read too. Tools (the reference's "Tool names for hook matching"): `edit` and
// `create` write `path` (relative paths are the session cwd's), `bash` runs `command`;
// `apply_patch` (GPT models) carries the Codex patch envelope. When Copilot runs Claude Code's
// hooks (it reads .claude/settings.json, see ../select.ts) the payload carries Claude's tool names
// (Edit, Write, MultiEdit, Bash; changelog) and tool_input.file_path: names are compared in
// lower case, and file_path is read after path.
const EDIT_TOOLS = new Set(['edit', 'create', 'write', 'multiedit']);
const SHELL_TOOLS = new Set(['bash']);

/** toolArgs as an object: parsed when it is a JSON string; the text itself when it is not JSON (a bare patch). */
function toolArgs(payload: Payload): { args: Payload; raw: string | null } {
  const v = payload['toolArgs'] ?? payload['tool_input'];
  if (typeof v !== 'string') return { args: record(v), raw: null };
  try {
    return { args: record(JSON.parse(v)), raw: v };
  } catch {
    return { args: {}, raw: v };
  }
}

/**
 * The session's own record (what it spent is read there: services/spend): agentStop's
 * transcriptPath, else where Copilot keeps it ($COPILOT_HOME, else ~/.copilot, session-state/ID/events.jsonl).
 */
function recordOf(payload: Payload, env: Env, id: string): string | null {
  const given = text(payload, 'transcriptPath');
  if (given?.startsWith('/')) return given;
  const home = env['COPILOT_HOME'] || (env['HOME'] ? `${env['HOME']}/.copilot` : undefined);
  return home?.startsWith('/') && /^[\w.-]+$/.test(id) ? `${home}/session-state/${id}/events.jsonl` : null;
}

export const copilot: AgentAdapter = {
  name: 'copilot',
  events: [
    'session-start',
    'pre-tool-use',
    'post-tool-use',
    'agent-stop',
    'session-end',
    'notification',
    'user-prompt-submitted',
    'error-occurred',
  ],
  parse(event: string, payload: Payload, env: Env): HookEvent {
    // COPILOT_AGENT_SESSION_ID: given to the shell commands and MCP servers it starts (changelog 1.0.x).
    // A sub-agent's hooks carry its own sessionId and its session's as parentAgentId (1.0.102): its
    // work is its session's, as Claude Code's subagents share their session.
    const id =
      text(payload, 'parentAgentId') ??
      text(payload, 'sessionId') ??
      text(payload, 'session_id') ??
      env['COPILOT_AGENT_SESSION_ID'];
    if (!id) throw badInput('copilot', 'the payload has no sessionId');
    const e = baseEvent('copilot', 'ignore', id, cwdOf(payload));
    e.toolName = text(payload, 'toolName') ?? text(payload, 'tool_name');
    const tool = e.toolName?.toLowerCase() ?? null;
    switch (event) {
      case 'session-start':
        e.record = recordOf(payload, env, id);
        return lifecycle(e, 'session-start', text(payload, 'source'));
      case 'session-end':
        return lifecycle(e, 'session-end', text(payload, 'reason'));
      case 'agent-stop':
        e.record = recordOf(payload, env, id);
        return lifecycle(e, 'stop');
      // notification (1.0.18+, fire and forget): permission_prompt when a prompt is shown, elicitation_dialog.
      case 'notification': {
        const type = text(payload, 'notification_type');
        return type === 'permission_prompt' || type === 'elicitation_dialog'
          ? asWaiting(e, text(payload, 'message') ?? type)
          : e;
      }
      case 'error-occurred': {
        const error = record(payload['error']);
        if (payload['recoverable'] === true) return e;
        return asWaiting(
          e,
          `the turn stopped on an error${text(error, 'message') ? `: ${text(error, 'message')}` : ''}`,
        );
      }
      case 'user-prompt-submitted':
        return asPrompt(e);
      case 'pre-tool-use':
      case 'post-tool-use': {
        const post = event === 'post-tool-use';
        const { args, raw } = toolArgs(payload);
        if (tool && EDIT_TOOLS.has(tool)) return asEdit(e, post, text(args, 'path') ?? text(args, 'file_path'));
        if (tool === 'apply_patch') {
          const patch = text(args, 'input') ?? text(args, 'patch') ?? text(args, 'command') ?? raw;
          if (!patch) throw badInput('copilot', 'apply_patch without the patch text in toolArgs');
          e.kind = post ? 'post-edit' : 'pre-edit';
          e.paths = [...new Set(patchTargets(patch).map((t) => absolute(e.cwd, t.path)))];
          return e;
        }
        return tool && SHELL_TOOLS.has(tool) && !post ? asShell(e, text(args, 'command')) : e;
      }
      default:
        throw badInput('copilot', `unknown event ${JSON.stringify(event)}`);
    }
  },
  render: renderCopilot,
};

/**
 * What reaches Copilot's model. preToolUse: `permissionDecisionReason` ("Reason shown to the
 * agent", CLI hooks reference) with `permissionDecision: "deny"`. Context: `additionalContext`,
 * injected into the conversation on sessionStart (changelog: "sessionStart hook additionalContext
 * is now injected into the conversation"), respected on preToolUse ("preToolUse hooks now respect
 * modifiedArgs/updatedInput, and additionalContext fields") and on postToolUse ("postToolUse hook
 * additionalContext is now injected as a system message for the model"). The references list
 * neither context field for command hooks, so a warning is given on both tool events: the model
 * may read it twice, but never miss it.
 */
export function renderCopilot(event: HookEvent, d: HookDecision): HookOutput {
  if (d.permission === 'deny')
    return json({ permissionDecision: 'deny', permissionDecisionReason: d.reason }, d.notice);
  // A warning decides nothing: no permissionDecision, Copilot's own approval rules stay in charge.
  if (d.context && ['session-start', 'pre-edit', 'pre-shell', 'post-edit'].includes(event.kind))
    return json({ additionalContext: d.context }, d.notice);
  return d.notice ? { ...SILENT, stderr: `lanes: ${d.notice}\n` } : SILENT;
}
