import { join } from 'node:path';
import { test } from 'node:test';
import { machineNodeOnly } from '../helpers/needs.js';
import assert from 'node:assert/strict';
import { lanes, lanesEnv } from '../helpers/env.js';
import { anthropic } from './fake-model/anthropic.js';
import { FakeModel } from './fake-model/server.js';
import { copilotArgs, copilotRunEnv } from './copilot-world.js';
import { installedOrSkip, pin } from './install.js';
import { PROMPT, assertScenario, headBefore, script } from './scenario.js';
import { agentEnv, runAgent, world } from './world.js';

// GitHub Copilot CLI, the released CLI, headless (`copilot -p`) and offline: COPILOT_OFFLINE=true
// with its own model provider (BYOK, COPILOT_PROVIDER_TYPE=anthropic) pointed at the local
// Messages API, no GitHub sign-in. The hooks are the repository's .github/hooks/ from `lanes
// hooks install copilot`, loaded only in a folder the user trusted (trusted_folders in
// $COPILOT_HOME/config.json).
const { version } = pin('copilot');

test(
  `Copilot CLI ${version} (real CLI, offline, scripted model): briefing, deny, warning, git commit refused, session end`,
  { skip: machineNodeOnly("the agents' real CLIs"), timeout: 8 * 60_000 },
  async (t) => {
    // Copilot CLI hooks are lanes' newest adapter: a lanes without it says so here, by name.
    const known = await lanes(['hooks', 'install', 'copilot', '--dry-run'], { env: lanesEnv(), cwd: process.cwd() });
    // lanes' own adapter failing is lanes' failure, never a reason to skip.
    assert.equal(known.code, 0, `lanes hooks install copilot --dry-run: ${known.stderr.trim()}`);
    const cli = installedOrSkip(t, 'copilot');
    if (!cli) return;
    const w = await world('copilot');
    const model = new FakeModel(
      anthropic,
      script({
        edit: (file, oldLine, newLine) => ({
          name: 'edit',
          input: { path: join(w.repo, file), old_str: oldLine, new_str: newLine },
        }),
        shell: (command) => ({ name: 'bash', input: { command, description: 'commit' } }),
      }),
      'copilot',
    );
    const url = await model.start();
    t.after(() => model.stop());
    const before = headBefore(w);
    // --allow-all-paths: the model's `lanes claim` runs this checkout's lanes (dist/cli.cjs, outside
    // the repository), which Copilot's path check would otherwise leave to an interactive approval.
    const run = await runAgent(cli.bin, copilotArgs(PROMPT), {
      cwd: w.repo,
      timeoutMs: 3 * 60_000,
      env: agentEnv(w, url, copilotRunEnv(w.home, w.repo, url)),
    });
    const session = await assertScenario('copilot', w, model, run, before);
    t.diagnostic(
      `real agent copilot@${version}: ran (${cli.bin}), session ${session}; refused egress: ${model.egress.join(', ') || 'none'}`,
    );
  },
);
