import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { machineNodeOnly, skipOrFail } from '../helpers/needs.js';
import { pauseRun } from './budget-pause.js';
import { gemini } from './fake-model/gemini.js';
import { ensureAgent, pin } from './install.js';
import { agentEnv, runAgent, world } from './world.js';

// A budget reached mid-run with Gemini CLI's released CLI (the scenario: budget-pause.ts), its
// spend read from its chat record: the pause words reach the model in the request after its
// denied call, lanes continue lets it finish.
const { version } = pin('gemini');

test(
  `Gemini CLI ${version} (real CLI, scripted model): a budget pauses it mid-run; lanes continue lets it finish`,
  { skip: machineNodeOnly("the agents' real CLIs"), timeout: 6 * 60_000 },
  async (t) => {
    const cli = ensureAgent('gemini');
    if (!cli.ok) {
      t.diagnostic(`real agent gemini@${version}: NOT RUN, could not install: ${cli.reason}`);
      skipOrFail(t, 'the npm registry', `gemini@${version} could not be installed: ${cli.reason}`);
      return;
    }
    const w = await world('gemini');
    const shell = (command: string) => ({ name: 'run_shell_command', input: { command, description: 'run it' } });
    const p = await pauseRun(t, w, gemini, 'gemini', shell);
    const dir = join(w.home, '.gemini');
    mkdirSync(dir, { recursive: true });
    const settings = {
      security: { auth: { selectedType: 'gemini-api-key' } },
      privacy: { usageStatisticsEnabled: false },
    };
    writeFileSync(join(dir, 'settings.json'), JSON.stringify(settings));
    writeFileSync(join(dir, 'trustedFolders.json'), JSON.stringify({ [w.repo]: 'TRUST_FOLDER' }));
    const extra = {
      GOOGLE_GEMINI_BASE_URL: p.url,
      GEMINI_API_KEY: 'lanes-test-not-a-key',
      GEMINI_CLI_NO_RELAUNCH: 'true',
    };
    const run = await runAgent(
      cli.bin,
      ['-p', 'Do the task.', '--approval-mode', 'yolo', '-m', 'gemini-2.5-flash', '--output-format', 'json'],
      { cwd: w.repo, timeoutMs: 3 * 60_000, env: { ...agentEnv(w, p.url, extra), ...p.env } },
    );
    // The shell's output in the function response (the call's own args name the command too).
    await p.check(run, /Output: after-continue/);
    t.diagnostic(`real agent gemini@${version}: ran (${cli.bin})`);
  },
);
