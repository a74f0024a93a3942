import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { machineNodeOnly } from '../helpers/needs.js';
import { gemini } from './fake-model/gemini.js';
import { FakeModel } from './fake-model/server.js';
import { installedOrSkip, pin } from './install.js';
import { PROMPT, assertScenario, headBefore, script } from './scenario.js';
import { agentEnv, runAgent, world } from './world.js';

// Gemini CLI, the released CLI, headless (`gemini -p`) against a local Gemini API
// (GOOGLE_GEMINI_BASE_URL with an API key): the hooks are the repository's .gemini/settings.json
// from `lanes hooks install gemini`. Its --fake-responses option would replay answers without a
// server, but records nothing the agent sends: the server is what shows the model's context.
const { version } = pin('gemini');

/**
 * ~/.gemini as a user who chose an API key and trusted the repository leaves it: Gemini CLI loads
 * a project's settings (its hooks among them) and lets tools run unprompted only in a trusted folder.
 */
function geminiHome(home: string, repo: string): void {
  const dir = join(home, '.gemini');
  mkdirSync(dir, { recursive: true });
  const settings = {
    security: { auth: { selectedType: 'gemini-api-key' } },
    privacy: { usageStatisticsEnabled: false },
  };
  writeFileSync(join(dir, 'settings.json'), JSON.stringify(settings, null, 2));
  writeFileSync(join(dir, 'trustedFolders.json'), JSON.stringify({ [repo]: 'TRUST_FOLDER' }, null, 2));
}

test(
  `Gemini CLI ${version} (real CLI, scripted model): briefing, deny, warning, git commit refused, session end`,
  { skip: machineNodeOnly("the agents' real CLIs"), timeout: 8 * 60_000 },
  async (t) => {
    const cli = installedOrSkip(t, 'gemini');
    if (!cli) return;
    const w = await world('gemini');
    const model = new FakeModel(
      gemini,
      script({
        edit: (file, oldLine, newLine) => ({
          name: 'replace',
          input: { file_path: join(w.repo, file), old_string: oldLine, new_string: newLine, instruction: 'edit' },
        }),
        shell: (command) => ({ name: 'run_shell_command', input: { command, description: 'commit' } }),
        whoami: { name: 'mcp_lanes_whoami', input: {} },
      }),
      'gemini',
    );
    const url = await model.start();
    t.after(() => model.stop());
    geminiHome(w.home, w.repo);
    const before = headBefore(w);
    const run = await runAgent(
      cli.bin,
      ['-p', PROMPT, '--approval-mode', 'yolo', '-m', 'gemini-2.5-flash', '--output-format', 'json'],
      {
        cwd: w.repo,
        timeoutMs: 3 * 60_000,
        env: agentEnv(w, url, {
          GOOGLE_GEMINI_BASE_URL: url,
          GEMINI_API_KEY: 'lanes-test-not-a-key',
          GEMINI_CLI_NO_RELAUNCH: 'true',
        }),
      },
    );
    const session = await assertScenario('gemini', w, model, run, before, { mcp: true });
    t.diagnostic(
      `real agent gemini@${version}: ran (${cli.bin}), session ${session}; refused egress: ${model.egress.join(', ') || 'none'}`,
    );
  },
);
