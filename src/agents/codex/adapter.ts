import type { HookEvent } from '../../core/hook-event.js';
import type { AgentAdapter, Payload } from '../adapter.js';
import { absolute, asShell, badInput, record, text } from '../adapter.js';
import { parseClaudeShaped, renderClaudeShaped } from '../claude-shaped.js';
import { patchTargets } from '../apply-patch.js';

// Codex CLI: Claude Code's field names and output format, but edits are `apply_patch` with the
// patch text in tool_input.command and RELATIVE paths parsed from the patch envelope.
const SHELL_TOOLS = new Set(['Bash', 'shell', 'exec_command', 'local_shell']);

export const codex: AgentAdapter = {
  name: 'codex',
  // Codex has no event for a wait on its person (no Notification; PermissionRequest also fires when
  // nobody is asked): its sessions show finished and denied, never waiting.
  events: ['session-start', 'pre-tool-use', 'post-tool-use', 'stop', 'session-end', 'user-prompt-submit'],
  parse(event: string, payload: Payload): HookEvent {
    const id = text(payload, 'session_id');
    if (!id) throw badInput('codex', 'the payload has no session_id');
    const e = parseClaudeShaped('codex', id, event, payload);
    if (event !== 'pre-tool-use' && event !== 'post-tool-use') return e;
    const input = payload['tool_input'];
    if (e.toolName === 'apply_patch') {
      const patch =
        typeof input === 'string'
          ? input
          : (text(record(input), 'command') ?? text(record(input), 'patch') ?? text(record(input), 'input'));
      if (!patch) throw badInput('codex', 'apply_patch without the patch text in tool_input.command');
      e.kind = event === 'pre-tool-use' ? 'pre-edit' : 'post-edit';
      e.paths = [...new Set(patchTargets(patch).map((t) => absolute(e.cwd, t.path)))];
    } else if (e.toolName && SHELL_TOOLS.has(e.toolName) && event === 'pre-tool-use') {
      const cmd = record(input)['command'];
      return asShell(e, Array.isArray(cmd) ? shellScript(cmd.map(String)) : typeof cmd === 'string' ? cmd : null);
    }
    return e;
  },
  render: renderClaudeShaped,
};

/** ["bash", "-lc", SCRIPT] runs SCRIPT; any other argv is read as one command line. */
function shellScript(argv: string[]): string {
  return argv.length >= 3 && /^(.*\/)?(ba|z|da)?sh$/.test(argv[0] ?? '') && /^-\w*c$/.test(argv[1] ?? '')
    ? (argv[2] ?? '')
    : argv.join(' ');
}
