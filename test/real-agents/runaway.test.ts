import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { machineNodeOnly, skipOrFail } from '../helpers/needs.js';
import { codexHome } from './codex-home.js';
import { copilotArgs, copilotRunEnv } from './copilot-world.js';
import { anthropic } from './fake-model/anthropic.js';
import { gemini } from './fake-model/gemini.js';
import { responses } from './fake-model/responses.js';
import type { Protocol, ToolCall } from './fake-model/server.js';
import { geminiArgs, geminiRunEnv } from './gemini-world.js';
import { ensureAgent, pin } from './install.js';
import { opencodeArgs, opencodeRunEnv } from './opencode-world.js';
import { OPENCODE_VERSION, chat, opencodeBinary } from './run-world.js';
import { runawayRun } from './runaway-run.js';
import { agentEnv, claudeEnv, runAgent, world } from './world.js';
import type { World } from './world.js';

// The same failing call three times in a row with each agent's released CLI (the scenario:
// runaway-run.ts), read from the agent's own record by the per-host watcher: Claude Code's
// transcript (tool_result is_error), Codex's rollout (item_completed exit_code), Gemini CLI's chat
// record (the tool call's result), Copilot CLI's events.jsonl (tool.execution_complete), OpenCode's
// database (its tool parts). Flagged once, with the call, and the person told.

interface Agent {
  /** lanes' name of the agent (its hooks' `lanes hook NAME`). */
  id: string;
  version: string;
  install: () => { bin: string } | { why: string };
  protocol: Protocol;
  shell: (command: string) => ToolCall;
  args: string[];
  env: (w: World, url: string) => Record<string, string>;
}

const fromNpm = (agent: string) => () => {
  const cli = ensureAgent(agent);
  return cli.ok ? { bin: cli.bin } : { why: cli.reason };
};
const shell = (name: string) => (command: string) => ({ name, input: { command, description: 'run it' } });

const AGENTS: Record<string, Agent> = {
  'Claude Code': {
    id: 'claude-code',
    version: pin('claude-code').version,
    install: fromNpm('claude-code'),
    protocol: anthropic,
    shell: shell('Bash'),
    args: [
      '-p',
      'Do the task.',
      '--permission-mode',
      'acceptEdits',
      '--allowedTools',
      'Bash',
      '--output-format',
      'json',
    ],
    env(w, url) {
      writeFileSync(join(w.repo, '.claude', 'settings.local.json'), JSON.stringify({ enabledMcpjsonServers: [] }));
      return claudeEnv(url);
    },
  },
  'Codex CLI': {
    id: 'codex',
    version: pin('codex').version,
    install: fromNpm('codex'),
    protocol: responses,
    shell: (command) => ({ name: 'exec_command', input: { cmd: command } }),
    args: ['exec', '--dangerously-bypass-hook-trust', '--sandbox', 'workspace-write', '--json', 'Do the task.'],
    env: (w, url) => ({ CODEX_HOME: codexHome(w.home, url, w.repo, true) }),
  },
  'Gemini CLI': {
    id: 'gemini',
    version: pin('gemini').version,
    install: fromNpm('gemini'),
    protocol: gemini,
    shell: shell('run_shell_command'),
    args: geminiArgs('Do the task.'),
    env: (w, url) => geminiRunEnv(w, url),
  },
  'Copilot CLI': {
    id: 'copilot',
    version: pin('copilot').version,
    install: fromNpm('copilot'),
    protocol: anthropic,
    shell: shell('bash'),
    args: copilotArgs('Do the task.'),
    env: (w, url) => copilotRunEnv(w.home, w.repo, url),
  },
  OpenCode: {
    id: 'opencode',
    version: OPENCODE_VERSION,
    install: opencodeBinary,
    protocol: chat,
    shell: shell('bash'),
    args: opencodeArgs('Do the task.'),
    env: (w, url) => opencodeRunEnv(w.home, w.repo, url),
  },
};

for (const [name, agent] of Object.entries(AGENTS))
  test(
    `${name} ${agent.version} (real CLI): the same failing call three times is flagged a runaway`,
    { skip: machineNodeOnly("the agents' real CLIs"), timeout: 6 * 60_000 },
    async (t) => {
      const cli = agent.install();
      if ('why' in cli) {
        t.diagnostic(`real agent ${name}@${agent.version}: NOT RUN, could not install: ${cli.why}`);
        skipOrFail(t, 'the npm registry', `${name}@${agent.version} could not be installed: ${cli.why}`);
        return;
      }
      const w = await world(agent.id);
      const r = await runawayRun(t, w, agent.protocol, agent.id, agent.shell);
      const run = await runAgent(cli.bin, agent.args, {
        cwd: w.repo,
        timeoutMs: 3 * 60_000,
        env: { ...agentEnv(w, r.url, agent.env(w, r.url)), ...r.env },
      });
      await r.check(run);
    },
  );
