import { test } from 'node:test';
import { machineNodeOnly } from '../helpers/needs.js';
import { pauseRun } from './budget-pause.js';
import { codexHome } from './codex-home.js';
import { responses } from './fake-model/responses.js';
import { installedOrSkip, pin } from './install.js';
import { agentEnv, runAgent, world } from './world.js';

// A budget reached mid-run with Codex's released CLI (the scenario: budget-pause.ts), its spend
// read from its rollout's token_count events: the pause words reach the model in the request after
// its denied call, lanes continue lets it finish.
const { version } = pin('codex');

test(
  `Codex CLI ${version} (real CLI, scripted model): a budget pauses it mid-run; lanes continue lets it finish`,
  { skip: machineNodeOnly("the agents' real CLIs"), timeout: 6 * 60_000 },
  async (t) => {
    const cli = installedOrSkip(t, 'codex');
    if (!cli) return;
    const w = await world('codex');
    const p = await pauseRun(t, w, responses, 'codex', (command) => ({
      name: 'exec_command',
      input: { cmd: command },
    }));
    const env = { ...agentEnv(w, p.url, { CODEX_HOME: codexHome(w.home, p.url, w.repo, true) }), ...p.env };
    const run = await runAgent(
      cli.bin,
      ['exec', '--dangerously-bypass-hook-trust', '--sandbox', 'workspace-write', '--json', 'Do the task.'],
      { cwd: w.repo, timeoutMs: 3 * 60_000, env },
    );
    await p.check(run, /after-continue\\n/);
    t.diagnostic(`real agent codex@${version}: ran (${cli.bin})`);
  },
);
