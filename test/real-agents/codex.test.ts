import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { machineNodeOnly } from '../helpers/needs.js';
import { codexHome } from './codex-home.js';
import { responses } from './fake-model/responses.js';
import { FakeModel } from './fake-model/server.js';
import { installedOrSkip, pin } from './install.js';
import assert from 'node:assert/strict';
import type { Turn } from './fake-model/server.js';
import type { AgentTools } from './scenario.js';
import { PROMPT, assertScenario, headBefore, script } from './scenario.js';
import { SEAT, SEAT_TEXT, agentEnv, must, runAgent, world } from './world.js';
import type { World } from './world.js';

// Codex CLI, the released CLI, headless (`codex exec`) against a local Responses API through a
// custom model provider; the hooks are the repository's .codex/hooks.json from `lanes hooks
// install codex`. Codex runs a project's hooks only in a trusted project ([projects."PATH"]
// trust_level = "trusted" in $CODEX_HOME/config.toml) and a non-managed hook only once reviewed in
// /hooks, which a headless run cannot do: --dangerously-bypass-hook-trust is Codex's documented
// switch for automation that vetted its hooks itself.
const { version } = pin('codex');

const patch = (file: string, oldLine: string, newLine: string) =>
  `*** Begin Patch\n*** Update File: ${file}\n@@\n-${oldLine}\n+${newLine}\n*** End Patch\n`;

const TOOLS: AgentTools = {
  edit: (file, oldLine, newLine) => ({ name: 'apply_patch', input: patch(file, oldLine, newLine) }),
  shell: (command) => ({ name: 'exec_command', input: { cmd: command } }),
};

/** Codex in the world, headless, against a model playing `turns`; with what `lanes hooks status` says of it there. */
async function codexRun(
  t: { after(fn: () => Promise<void>): void },
  bin: string,
  w: World,
  turns: Turn[],
  trusted: boolean,
) {
  const model = new FakeModel(responses, turns, trusted ? 'codex' : 'codex-untrusted');
  const url = await model.start();
  t.after(() => model.stop());
  const env = agentEnv(w, url, { CODEX_HOME: codexHome(w.home, url, w.repo, trusted) });
  const status = JSON.parse(await must(['hooks', 'status', '--json'], { env, repo: w.repo })) as {
    agent: string;
    exists: boolean;
    active: { findings: string[] } | null;
  }[];
  const findings = status.find((s) => s.agent === 'codex' && s.exists)?.active?.findings ?? [];
  const before = headBefore(w);
  const run = await runAgent(
    bin,
    ['exec', '--dangerously-bypass-hook-trust', '--sandbox', 'workspace-write', '--json', PROMPT],
    {
      cwd: w.repo,
      timeoutMs: 3 * 60_000,
      env,
    },
  );
  return { model, run, before, findings };
}

const untrustedFinding = /is not a trusted project in .*config\.toml: Codex skips its \.codex\/ hooks/;

test(
  `Codex CLI ${version} (real CLI, scripted model): briefing, deny, warning, git commit refused, session end`,
  { skip: machineNodeOnly("the agents' real CLIs"), timeout: 8 * 60_000 },
  async (t) => {
    const cli = installedOrSkip(t, 'codex');
    if (!cli) return;
    const w = await world('codex');
    const { model, run, before, findings } = await codexRun(t, cli.bin, w, script(TOOLS), true);
    assert.ok(
      !findings.some((f) => untrustedFinding.test(f)),
      `hooks status calls a trusted project untrusted: ${findings.join('; ')}`,
    );
    const session = await assertScenario('codex', w, model, run, before);
    t.diagnostic(
      `real agent codex@${version}: ran (${cli.bin}), session ${session}; refused egress: ${model.egress.join(', ') || 'none'}`,
    );
  },
);

// The finding, kept true: in a project Codex does not trust, `codex exec` skips the
// project's hooks without a word (asked to write, --sandbox workspace-write, it edits the claimed
// file; by default an untrusted project is read-only), and `lanes hooks status` says so.
test(
  `Codex CLI ${version} in an untrusted project: its hooks are skipped, and lanes hooks status says so`,
  { skip: machineNodeOnly("the agents' real CLIs"), timeout: 8 * 60_000 },
  async (t) => {
    const cli = installedOrSkip(t, 'codex');
    if (!cli) return;
    const w = await world('codex');
    const turns: Turn[] = [
      { tools: [TOOLS.edit(SEAT, 'export const limit = 1', 'export const limit = 2')] },
      { text: 'Done.' },
    ];
    const { model, run, findings } = await codexRun(t, cli.bin, w, turns, false);
    assert.ok(
      findings.some((f) => untrustedFinding.test(f)),
      `hooks status does not say the project is untrusted: ${findings.join('; ')}`,
    );
    assert.equal(run.code, 0, `codex exec failed: ${run.stderr.slice(-2000)}`);
    assert.equal(model.served, 2, 'the scripted turns were not all played');
    assert.ok(
      !JSON.stringify(model.mainLoop()[0]).includes('lanes: you are session'),
      'the hooks ran in an untrusted project',
    );
    assert.notEqual(
      readFileSync(join(w.repo, SEAT), 'utf8'),
      SEAT_TEXT,
      'Codex now refuses the claimed edit without its hooks: update the README and hooks status',
    );
    const sessions = JSON.parse(await must(['ls', '--all', '--json'], w)) as { agent: string }[];
    assert.ok(!sessions.some((s) => s.agent === 'codex'), 'a codex session was registered: the hooks ran');
  },
);
