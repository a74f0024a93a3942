import { test } from 'node:test';
import { machineNodeOnly } from '../helpers/needs.js';
import { pauseRun } from './budget-pause.js';
import { gemini } from './fake-model/gemini.js';
import { geminiArgs, geminiRunEnv } from './gemini-world.js';
import { installedOrSkip, pin } from './install.js';
import { agentEnv, runAgent, world } from './world.js';

// A budget reached mid-run with Gemini CLI's released CLI (the scenario: budget-pause.ts), its
// spend read from its chat record: the pause words reach the model in the request after its
// denied call, lanes continue lets it finish.
const { version } = pin('gemini');

test(
  `Gemini CLI ${version} (real CLI, scripted model): a budget pauses it mid-run; lanes continue lets it finish`,
  { skip: machineNodeOnly("the agents' real CLIs"), timeout: 6 * 60_000 },
  async (t) => {
    const cli = installedOrSkip(t, 'gemini');
    if (!cli) return;
    const w = await world('gemini');
    const shell = (command: string) => ({ name: 'run_shell_command', input: { command, description: 'run it' } });
    const p = await pauseRun(t, w, gemini, 'gemini', shell);
    const run = await runAgent(cli.bin, geminiArgs('Do the task.'), {
      cwd: w.repo,
      timeoutMs: 3 * 60_000,
      env: { ...agentEnv(w, p.url, geminiRunEnv(w, p.url)), ...p.env },
    });
    // The shell's output in the function response (the call's own args name the command too).
    await p.check(run, /Output: after-continue/);
    t.diagnostic(`real agent gemini@${version}: ran (${cli.bin})`);
  },
);
