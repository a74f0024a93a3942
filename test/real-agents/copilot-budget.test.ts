import { test } from 'node:test';
import { machineNodeOnly } from '../helpers/needs.js';
import { pauseRun } from './budget-pause.js';
import { copilotArgs, copilotRecorded, copilotRunEnv } from './copilot-world.js';
import { anthropic } from './fake-model/anthropic.js';
import { installedOrSkip, pin } from './install.js';
import { agentEnv, runAgent, world } from './world.js';

// A budget reached mid-run with GitHub Copilot CLI's released CLI (the scenario: budget-pause.ts),
// its spend read from its own events.jsonl (session.usage_record, written a moment after each
// call: the scripted model answers once the last one is written, as a real model's seconds allow):
// the pause words reach the model in the request after its denied call, lanes continue lets it finish.
const { version } = pin('copilot');

test(
  `Copilot CLI ${version} (real CLI, offline, scripted model): a budget pauses it mid-run; lanes continue lets it finish`,
  { skip: machineNodeOnly("the agents' real CLIs"), timeout: 6 * 60_000 },
  async (t) => {
    const cli = installedOrSkip(t, 'copilot');
    if (!cli) return;
    const w = await world('copilot');
    const bash = (command: string) => ({ name: 'bash', input: { command, description: 'run it' } });
    const p = await pauseRun(t, w, anthropic, 'copilot', bash, (n) => copilotRecorded(w, n));
    const run = await runAgent(cli.bin, copilotArgs('Do the task.'), {
      cwd: w.repo,
      timeoutMs: 3 * 60_000,
      env: { ...agentEnv(w, p.url, copilotRunEnv(w.home, w.repo, p.url)), ...p.env },
    });
    await p.check(run, /after-continue/);
    t.diagnostic(`real agent copilot@${version}: ran (${cli.bin})`);
  },
);
