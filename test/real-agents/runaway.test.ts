import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { machineNodeOnly, skipOrFail } from '../helpers/needs.js';
import { codexHome } from './codex-home.js';
import { copilotArgs, copilotRunEnv } from './copilot-world.js';
import { anthropic } from './fake-model/anthropic.js';
import { gemini } from './fake-model/gemini.js';
import { responses } from './fake-model/responses.js';
import { geminiArgs, geminiRunEnv } from './gemini-world.js';
import { ensureAgent, pin } from './install.js';
import { opencodeArgs, opencodeRunEnv } from './opencode-world.js';
import { OPENCODE_VERSION, chat, opencodeBinary } from './run-world.js';
import { runawayRun } from './runaway-run.js';
import { agentEnv, claudeEnv, runAgent, world } from './world.js';

// The same failing call three times in a row with each agent's released CLI (the scenario:
// runaway-run.ts), read from the agent's own record by the per-host watcher: Claude Code's
// transcript (tool_result is_error), Codex's rollout (item_completed exit_code), Gemini CLI's chat
// record (the tool call's result). Flagged once, with the call, and the person told.

const RUN = { skip: machineNodeOnly("the agents' real CLIs"), timeout: 6 * 60_000 };

function installed(t: TestContext, agent: string): string | null {
  const { version } = pin(agent);
  const cli = ensureAgent(agent);
  if (cli.ok) return cli.bin;
  t.diagnostic(`real agent ${agent}@${version}: NOT RUN, could not install: ${cli.reason}`);
  skipOrFail(t, 'the npm registry', `${agent}@${version} could not be installed: ${cli.reason}`);
  return null;
}

test(
  `Claude Code ${pin('claude-code').version} (real CLI): the same failing call three times is flagged a runaway`,
  RUN,
  async (t) => {
    const bin = installed(t, 'claude-code');
    if (!bin) return;
    const w = await world('claude-code');
    const r = await runawayRun(t, w, anthropic, 'claude-code', (command) => ({
      name: 'Bash',
      input: { command, description: 'run it' },
    }));
    writeFileSync(join(w.repo, '.claude', 'settings.local.json'), JSON.stringify({ enabledMcpjsonServers: [] }));
    const run = await runAgent(
      bin,
      ['-p', 'Do the task.', '--permission-mode', 'acceptEdits', '--allowedTools', 'Bash', '--output-format', 'json'],
      { cwd: w.repo, timeoutMs: 3 * 60_000, env: { ...agentEnv(w, r.url, claudeEnv(r.url)), ...r.env } },
    );
    await r.check(run);
  },
);

test(
  `Codex CLI ${pin('codex').version} (real CLI): the same failing call three times is flagged a runaway`,
  RUN,
  async (t) => {
    const bin = installed(t, 'codex');
    if (!bin) return;
    const w = await world('codex');
    const r = await runawayRun(t, w, responses, 'codex', (command) => ({
      name: 'exec_command',
      input: { cmd: command },
    }));
    const env = { ...agentEnv(w, r.url, { CODEX_HOME: codexHome(w.home, r.url, w.repo, true) }), ...r.env };
    const run = await runAgent(
      bin,
      ['exec', '--dangerously-bypass-hook-trust', '--sandbox', 'workspace-write', '--json', 'Do the task.'],
      { cwd: w.repo, timeoutMs: 3 * 60_000, env },
    );
    await r.check(run);
  },
);

test(
  `Gemini CLI ${pin('gemini').version} (real CLI): the same failing call three times is flagged a runaway`,
  RUN,
  async (t) => {
    const bin = installed(t, 'gemini');
    if (!bin) return;
    const w = await world('gemini');
    const r = await runawayRun(t, w, gemini, 'gemini', (command) => ({
      name: 'run_shell_command',
      input: { command, description: 'run it' },
    }));
    const run = await runAgent(bin, geminiArgs('Do the task.'), {
      cwd: w.repo,
      timeoutMs: 3 * 60_000,
      env: { ...agentEnv(w, r.url, geminiRunEnv(w, r.url)), ...r.env },
    });
    await r.check(run);
  },
);

test(
  `Copilot CLI ${pin('copilot').version} (real CLI): the same failing call three times is flagged a runaway`,
  RUN,
  async (t) => {
    const bin = installed(t, 'copilot');
    if (!bin) return;
    const w = await world('copilot');
    const r = await runawayRun(t, w, anthropic, 'copilot', (command) => ({
      name: 'bash',
      input: { command, description: 'run it' },
    }));
    const run = await runAgent(bin, copilotArgs('Do the task.'), {
      cwd: w.repo,
      timeoutMs: 3 * 60_000,
      env: { ...agentEnv(w, r.url, copilotRunEnv(w, r.url)), ...r.env },
    });
    await r.check(run);
  },
);

test(
  `OpenCode ${OPENCODE_VERSION} (real CLI): the same failing call three times is flagged a runaway`,
  RUN,
  async (t) => {
    const cli = opencodeBinary();
    if ('why' in cli) {
      t.diagnostic(`real agent opencode@${OPENCODE_VERSION}: NOT RUN, could not install: ${cli.why}`);
      skipOrFail(t, 'the npm registry', `opencode@${OPENCODE_VERSION} could not be installed: ${cli.why}`);
      return;
    }
    const w = await world('opencode');
    const r = await runawayRun(t, w, chat, 'opencode', (command) => ({
      name: 'bash',
      input: { command, description: 'run it' },
    }));
    const run = await runAgent(cli.bin, opencodeArgs('Do the task.'), {
      cwd: w.repo,
      timeoutMs: 3 * 60_000,
      env: { ...agentEnv(w, r.url, opencodeRunEnv(w.home, w.repo, r.url)), ...r.env },
    });
    await r.check(run);
  },
);
