import { test } from 'node:test';
import { machineNodeOnly, skipOrFail } from '../helpers/needs.js';
import { pauseRun } from './budget-pause.js';
import { opencodeArgs, opencodeRunEnv } from './opencode-world.js';
import { OPENCODE_VERSION, chat, opencodeBinary } from './run-world.js';
import { agentEnv, runAgent, world } from './world.js';

// A budget reached mid-run with OpenCode's released CLI (the scenario: budget-pause.ts), its spend
// read from its own database (the session's running totals, added to as each step finishes): the
// pause words reach the model in the request after its denied call (a plugin's throw is the tool's
// error, which the model reads), lanes continue lets it finish.
test(
  `OpenCode ${OPENCODE_VERSION} (real CLI, scripted model): a budget pauses it mid-run; lanes continue lets it finish`,
  { skip: machineNodeOnly("the agents' real CLIs"), timeout: 6 * 60_000 },
  async (t) => {
    const cli = opencodeBinary();
    if ('why' in cli) {
      t.diagnostic(`real agent opencode@${OPENCODE_VERSION}: NOT RUN, could not install: ${cli.why}`);
      skipOrFail(t, 'the npm registry', `opencode@${OPENCODE_VERSION} could not be installed: ${cli.why}`);
      return;
    }
    const w = await world('opencode');
    const bash = (command: string) => ({ name: 'bash', input: { command, description: 'run it' } });
    const p = await pauseRun(t, w, chat, 'opencode', bash);
    const run = await runAgent(cli.bin, opencodeArgs('Do the task.'), {
      cwd: w.repo,
      timeoutMs: 3 * 60_000,
      env: { ...agentEnv(w, p.url, opencodeRunEnv(w.home, w.repo, p.url)), ...p.env },
    });
    await p.check(run, /after-continue/);
    t.diagnostic(`real agent opencode@${OPENCODE_VERSION}: ran (${cli.bin})`);
  },
);
