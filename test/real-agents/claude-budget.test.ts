import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { machineNodeOnly } from '../helpers/needs.js';
import { pauseRun } from './budget-pause.js';
import { anthropic } from './fake-model/anthropic.js';
import { installedOrSkip, pin } from './install.js';
import { agentEnv, claudeEnv, runAgent, world } from './world.js';

// A budget reached mid-run with Claude Code's released CLI (the scenario: budget-pause.ts): the
// pause words reach the model in the request after its denied call, lanes continue lets it finish.
// Claude Code writes a model's answer to its transcript about when it runs the tool, so a check
// sees it or not yet: the pause comes at the 3rd or 4th call.
const { version } = pin('claude-code');

test(
  `Claude Code ${version} (real CLI, scripted model): a budget pauses it mid-run; lanes continue lets it finish`,
  { skip: machineNodeOnly("the agents' real CLIs"), timeout: 6 * 60_000 },
  async (t) => {
    const cli = installedOrSkip(t, 'claude-code');
    if (!cli) return;
    const w = await world('claude-code');
    const bash = (command: string) => ({ name: 'Bash', input: { command, description: 'run it' } });
    const p = await pauseRun(t, w, anthropic, 'claude-code', bash);
    writeFileSync(join(w.repo, '.claude', 'settings.local.json'), JSON.stringify({ enabledMcpjsonServers: [] }));
    const run = await runAgent(
      cli.bin,
      ['-p', 'Do the task.', '--permission-mode', 'acceptEdits', '--allowedTools', 'Bash', '--output-format', 'json'],
      { cwd: w.repo, timeoutMs: 3 * 60_000, env: { ...agentEnv(w, p.url, claudeEnv(p.url)), ...p.env } },
    );
    await p.check(run, /"content":"after-continue/);
    t.diagnostic(`real agent claude-code@${version}: ran (${cli.bin})`);
  },
);
