import { EXIT } from '../../core/errors.js';
import { AGENTS } from '../../core/hook-event.js';
import type { CommandSpec } from '../command.js';
import { str, usageError } from '../command.js';
import { VERSION } from '../version.js';

export const command: CommandSpec = {
  name: 'mcp',
  summary: 'Serve lanes to an agent over the Model Context Protocol (stdio); installed by `lanes hooks install`.',
  usage: 'mcp [--agent AGENT] [--store PATH]',
  description: [
    'An MCP server on stdin/stdout with the tools whoami, sessions, claim (optionally waiting), release,',
    'check, claims, conflicts, handoff_put, handoff_get, commit and snapshot. It acts as the session of',
    'the agent that started it: the live session its hooks registered for the same agent process, else',
    '$LANES_SESSION when live, else one it registers for that process. A tool call never names a session.',
    "Errors are tool errors carrying lanes' code and the fix. Runs until the client closes stdin.",
  ].join('\n'),
  options: {
    agent: {
      type: 'string',
      arg: 'AGENT',
      help: `the agent that runs it (${AGENTS.join(', ')}), recorded when it registers a session`,
    },
  },
  maxPositionals: 0,
  examples: ['claude mcp add lanes -- lanes mcp --agent claude-code'],
  async run(args) {
    const agent = str(args.values['agent']) ?? null;
    if (agent !== null && !(AGENTS as readonly string[]).includes(agent))
      throw usageError(this, `unknown agent ${JSON.stringify(agent)}: use one of ${AGENTS.join(', ')}`);
    const store = str(args.values['store']);
    // Its own bundle (dist/mcp.cjs): the MCP SDK is loaded by this command only.
    const { serveMcp } = await import('../../mcp/server.js');
    await serveMcp({ agent, version: VERSION, ...(store ? { store } : {}) });
    return EXIT.ok;
  },
};
