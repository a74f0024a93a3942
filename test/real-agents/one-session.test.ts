import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { machineNodeOnly, skipOrFail } from '../helpers/needs.js';
import { lanes } from '../helpers/env.js';
import { anthropic } from './fake-model/anthropic.js';
import { gemini } from './fake-model/gemini.js';
import { responses } from './fake-model/responses.js';
import { FakeModel } from './fake-model/server.js';
import type { Protocol } from './fake-model/server.js';
import { ensureAgent, pin } from './install.js';
import { copilotArgs, copilotRunEnv } from './copilot-world.js';
import { opencodeArgs, opencodeRunEnv } from './opencode-world.js';
import { agentEnv } from './world.js';
import {
  OPENCODE_VERSION,
  PROMPT,
  assertOneSession,
  chat,
  opencodeBinary,
  runWorld,
  script,
  startRun,
} from './run-world.js';
import type { RunTools, RunWorld } from './run-world.js';

// Issue 44, item 1, with the agents' released CLIs: `lanes new SHOP-1 --agent AGENT --background --
// AGENT -p …` in a repository with lanes' hooks and no other session. The agent's own hooks bind
// its session to the run's (LANES_RUN from the wrapper), so its scripted model's `git add && git
// commit` in its worktree is its own (no shared-worktree deny), `lanes ls` from its shell shows one
// live session (the run), and `lanes land` from its shell lands the run's branch under SHOP-1.
// The agent's configuration (a trusted folder, the fake model's endpoint) names the run's worktree.

interface Agent {
  version: string;
  install(): { bin: string } | { why: string };
  protocol: Protocol;
  tools(w: RunWorld): RunTools;
  args: string[];
  /** Writes the agent's own configuration into its home; the variables it runs with beside agentEnv's. */
  setup(w: RunWorld, url: string): Record<string, string>;
}

const fromNpm = (name: string) => () => {
  const cli = ensureAgent(name);
  return cli.ok ? { bin: cli.bin } : { why: cli.reason };
};
const file = (path: string, value: unknown) => {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value, null, 2));
};
const claudeEnv = (url: string) => ({
  ANTHROPIC_BASE_URL: url,
  ANTHROPIC_API_KEY: 'sk-ant-lanes-test-not-a-key',
  DISABLE_TELEMETRY: '1',
  DISABLE_AUTOUPDATER: '1',
  DISABLE_ERROR_REPORTING: '1',
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
});

const AGENTS: Record<string, Agent> = {
  'claude-code': {
    version: pin('claude-code').version,
    install: fromNpm('claude-code'),
    protocol: anthropic,
    tools: (w) => ({
      edit: (f, oldText, newText) => ({
        name: 'Edit',
        input: { file_path: join(w.worktree, f), old_string: oldText, new_string: newText },
      }),
      shell: (command) => ({ name: 'Bash', input: { command, description: 'run' } }),
    }),
    args: ['-p', PROMPT, '--permission-mode', 'acceptEdits', '--allowedTools', 'Bash', '--output-format', 'json'],
    setup: (_w, url) => claudeEnv(url),
  },
  codex: {
    version: pin('codex').version,
    install: fromNpm('codex'),
    protocol: responses,
    tools: () => ({
      edit: (f, oldLine, newLine) => ({
        name: 'apply_patch',
        input: `*** Begin Patch\n*** Update File: ${f}\n@@\n-${oldLine}\n+${newLine}\n*** End Patch\n`,
      }),
      shell: (command) => ({ name: 'exec_command', input: { cmd: command } }),
    }),
    args: ['exec', '--dangerously-bypass-hook-trust', '--sandbox', 'workspace-write', '--json', PROMPT],
    setup(w, url) {
      // As codex.test.ts: the fake provider, and the project trusted (the worktree and its repository).
      // No writable root of the test's own: lanes gives Codex the worktree's git directory (--add-dir).
      const trust = [w.worktree, w.repo].flatMap((p) => [`[projects.${JSON.stringify(p)}]`, 'trust_level = "trusted"']);
      const config = [
        'model = "gpt-5.5"',
        'model_provider = "lanes_fake"',
        'check_for_update_on_startup = false',
        '[model_providers.lanes_fake]',
        'name = "lanes fake model"',
        `base_url = "${url}/v1"`,
        'wire_api = "responses"',
        'request_max_retries = 0',
        'stream_max_retries = 0',
        '[analytics]',
        'enabled = false',
        ...trust,
      ];
      file(join(w.home, '.codex', 'config.toml'), config.join('\n') + '\n');
      return { CODEX_HOME: join(w.home, '.codex') };
    },
  },
  gemini: {
    version: pin('gemini').version,
    install: fromNpm('gemini'),
    protocol: gemini,
    tools: (w) => ({
      edit: (f, oldLine, newLine) => ({
        name: 'replace',
        input: { file_path: join(w.worktree, f), old_string: oldLine, new_string: newLine, instruction: 'edit' },
      }),
      shell: (command) => ({ name: 'run_shell_command', input: { command, description: 'run' } }),
    }),
    args: ['-p', PROMPT, '--approval-mode', 'yolo', '-m', 'gemini-2.5-flash', '--output-format', 'json'],
    setup(w, url) {
      const settings = {
        security: { auth: { selectedType: 'gemini-api-key' } },
        privacy: { usageStatisticsEnabled: false },
      };
      file(join(w.home, '.gemini', 'settings.json'), settings);
      file(join(w.home, '.gemini', 'trustedFolders.json'), { [w.worktree]: 'TRUST_FOLDER' });
      return { GOOGLE_GEMINI_BASE_URL: url, GEMINI_API_KEY: 'lanes-test-not-a-key', GEMINI_CLI_NO_RELAUNCH: 'true' };
    },
  },
  copilot: {
    version: pin('copilot').version,
    install: fromNpm('copilot'),
    protocol: anthropic,
    tools: (w) => ({
      edit: (f, oldLine, newLine) => ({
        name: 'edit',
        input: { path: join(w.worktree, f), old_str: oldLine, new_str: newLine },
      }),
      shell: (command) => ({ name: 'bash', input: { command, description: 'run' } }),
    }),
    args: copilotArgs(PROMPT),
    setup: (w, url) => copilotRunEnv(w.home, w.worktree, url),
  },
  opencode: {
    version: OPENCODE_VERSION,
    install: opencodeBinary,
    protocol: chat,
    tools: (w) => ({
      edit: (f, oldLine, newLine) => ({
        name: 'edit',
        input: { filePath: join(w.worktree, f), oldString: oldLine, newString: newLine },
      }),
      shell: (command) => ({ name: 'bash', input: { command, description: 'run' } }),
    }),
    args: opencodeArgs(PROMPT),
    // The provider in the user's config (the project's opencode.json is lanes', committed).
    setup: (w, url) => opencodeRunEnv(w.home, w.worktree, url),
  },
};

for (const [name, agent] of Object.entries(AGENTS))
  test(
    `${name} ${agent.version} (real CLI) started by lanes new is the run's session: its commit, lanes ls and lanes land`,
    { skip: machineNodeOnly("the agents' real CLIs"), timeout: 8 * 60_000 },
    async (t) => {
      const cli = agent.install();
      if ('why' in cli) {
        t.diagnostic(`real agent ${name}@${agent.version}: NOT RUN, could not install: ${cli.why}`);
        skipOrFail(t, 'the npm registry', `${name}@${agent.version} could not be installed: ${cli.why}`);
        return;
      }
      const started = Date.now();
      const w = await runWorld(name, (fn) => t.after(fn));
      const model = new FakeModel(agent.protocol, script(agent.tools(w)), `one-session-${name}`);
      const url = await model.start();
      t.after(() => model.stop());
      const proxy = { url, egress: model.egress };
      const env = agentEnv(w, proxy.url, agent.setup(w, url));
      const run = await startRun(w, name, [cli.bin, ...agent.args], env);
      // An agent that hangs is stopped with its run (the wrapper forwards the signal); the repository may be gone.
      t.after(async () => void (await lanes(['stop', run.id], { env: w.env, cwd: tmpdir() })));
      const conversation = await assertOneSession(name, w, model, run);
      t.diagnostic(
        `real agent ${name}@${agent.version}: run ${run.id} bound to ${conversation} in ${Date.now() - started} ms; refused egress: ${proxy.egress.join(', ') || 'none'}`,
      );
    },
  );
