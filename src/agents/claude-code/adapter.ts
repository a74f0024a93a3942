import type { HookEvent } from '../../core/hook-event.js';
import type { AgentAdapter, Env, Payload } from '../adapter.js';
import { badInput, pidFrom, text } from '../adapter.js';
import { parseClaudeShaped, renderClaudeShaped } from '../claude-shaped.js';

// Claude Code: its payload and output are the Claude shape (../claude-shaped.ts); its own
// environment adds the agent's pid and the file whose exports reach its shell commands.
export const claudeCode: AgentAdapter = {
  name: 'claude-code',
  events: [
    'session-start',
    'pre-tool-use',
    'post-tool-use',
    'stop',
    'session-end',
    'notification',
    'stop-failure',
    'user-prompt-submit',
    'subagent-stop',
    // Answered apart (cli/hook-worktree.ts): they make and remove worktrees, and never fail open.
    'worktree-create',
    'worktree-remove',
  ],
  parse(event: string, payload: Payload, env: Env): HookEvent {
    const id = text(payload, 'session_id') ?? env['CLAUDE_CODE_SESSION_ID'];
    if (!id) throw badInput('claude-code', 'the payload has no session_id');
    const e = parseClaudeShaped('claude-code', id, event, payload);
    e.agentPid = pidFrom(env['CLAUDE_PID']);
    if (e.kind === 'session-start') e.envFile = env['CLAUDE_ENV_FILE'] || null;
    return e;
  },
  render: renderClaudeShaped,
};
