import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { responses } from './fake-model/responses.js';
import { FakeModel } from './fake-model/server.js';
import { ensureAgent, pin } from './install.js';
import { PROMPT, assertScenario, headBefore, script } from './scenario.js';
import { agentEnv, runAgent, world } from './world.js';

// Codex CLI, the released CLI, headless (`codex exec`) against a local Responses API through a
// custom model provider; the hooks are the repository's .codex/hooks.json from `lanes hooks
// install codex`. Codex runs a project's hooks only in a trusted project ([projects."PATH"]
// trust_level = "trusted" in $CODEX_HOME/config.toml) and a non-managed hook only once reviewed in
// /hooks, which a headless run cannot do: --dangerously-bypass-hook-trust is Codex's documented
// switch for automation that vetted its hooks itself.
const { version } = pin('codex');

/** $CODEX_HOME/config.toml: the fake provider (gpt-5.5 is in Codex's bundled catalog: apply_patch is offered), the project trusted. */
function codexHome(home: string, url: string, repo: string): string {
  const dir = join(home, '.codex');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'config.toml'),
    [
      'model = "gpt-5.5"',
      'model_provider = "lanes_fake"',
      'check_for_update_on_startup = false',
      '',
      '[model_providers.lanes_fake]',
      'name = "lanes fake model"',
      `base_url = "${url}/v1"`,
      'wire_api = "responses"',
      'request_max_retries = 0',
      'stream_max_retries = 0',
      '',
      '[analytics]',
      'enabled = false',
      '',
      `[projects.${JSON.stringify(repo)}]`,
      'trust_level = "trusted"',
      '',
    ].join('\n'),
  );
  return dir;
}

const patch = (file: string, oldLine: string, newLine: string) =>
  `*** Begin Patch\n*** Update File: ${file}\n@@\n-${oldLine}\n+${newLine}\n*** End Patch\n`;

test(
  `Codex CLI ${version} (real CLI, scripted model): briefing, deny, warning, git commit refused, session end`,
  { timeout: 8 * 60_000 },
  async (t) => {
    const cli = ensureAgent('codex');
    if (!cli.ok) {
      t.diagnostic(`real agent codex@${version}: NOT RUN, could not install: ${cli.reason}`);
      t.skip(`codex@${version} could not be installed: ${cli.reason}`);
      return;
    }
    const w = await world('codex');
    const model = new FakeModel(
      responses,
      script({
        edit: (file, oldLine, newLine) => ({ name: 'apply_patch', input: patch(file, oldLine, newLine) }),
        shell: (command) => ({ name: 'exec_command', input: { cmd: command } }),
      }),
      'codex',
    );
    const url = await model.start();
    t.after(() => model.stop());
    const before = headBefore(w);
    const run = await runAgent(cli.bin, ['exec', '--dangerously-bypass-hook-trust', '--json', PROMPT], {
      cwd: w.repo,
      timeoutMs: 3 * 60_000,
      env: agentEnv(w, url, { CODEX_HOME: codexHome(w.home, url, w.repo) }),
    });
    const session = await assertScenario('codex', w, model, run, before);
    t.diagnostic(
      `real agent codex@${version}: ran (${cli.bin}), session ${session}; refused egress: ${model.egress.join(', ') || 'none'}`,
    );
  },
);
