import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { machineNodeOnly } from '../helpers/needs.js';
import { anthropic } from './fake-model/anthropic.js';
import { FakeModel } from './fake-model/server.js';
import { installedOrSkip, pin } from './install.js';
import { PROMPT, assertScenario, headBefore, script } from './scenario.js';
import { agentEnv, runAgent, world } from './world.js';
import { CLI } from '../helpers/env.js';

// Claude Code, the released CLI, headless (`claude -p`) against a local Messages API: the hooks
// `lanes hooks install claude-code` wrote into the repository's .claude/settings.json drive lanes.
const { version } = pin('claude-code');

test(
  `Claude Code ${version} (real CLI, scripted model): briefing, deny, warning, git commit refused, session end`,
  { skip: machineNodeOnly("the agents' real CLIs"), timeout: 8 * 60_000 },
  async (t) => {
    const cli = installedOrSkip(t, 'claude-code');
    if (!cli) return;
    const w = await world('claude-code');
    const model = new FakeModel(
      anthropic,
      script({
        edit: (file, oldText, newText) => ({
          name: 'Edit',
          input: { file_path: join(w.repo, file), old_string: oldText, new_string: newText },
        }),
        shell: (command) => ({ name: 'Bash', input: { command, description: 'commit' } }),
        whoami: { name: 'mcp__lanes__whoami', input: {} },
      }),
      'claude-code',
    );
    const url = await model.start();
    t.after(() => model.stop());
    // The user's approval of the project's MCP server (.mcp.json), as Claude Code keeps it once asked.
    writeFileSync(join(w.repo, '.claude', 'settings.local.json'), JSON.stringify({ enabledMcpjsonServers: ['lanes'] }));
    const before = headBefore(w);
    const run = await runAgent(
      cli.bin,
      [
        '-p',
        PROMPT,
        '--permission-mode',
        'acceptEdits',
        '--allowedTools',
        'mcp__lanes__whoami',
        // As a user allows `Bash(lanes claim:*)`: here the checkout's lanes, by its full command.
        `Bash(${process.execPath} ${CLI} claim:*)`,
        '--output-format',
        'json',
      ],
      {
        cwd: w.repo,
        timeoutMs: 3 * 60_000,
        env: agentEnv(w, url, {
          ANTHROPIC_BASE_URL: url,
          ANTHROPIC_API_KEY: 'sk-ant-lanes-test-not-a-key',
          DISABLE_TELEMETRY: '1',
          DISABLE_AUTOUPDATER: '1',
          DISABLE_ERROR_REPORTING: '1',
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        }),
      },
    );
    const session = await assertScenario('claude-code', w, model, run, before, { mcp: true });
    t.diagnostic(
      `real agent claude-code@${version}: ran (${cli.bin}), session ${session}; refused egress: ${model.egress.join(', ') || 'none'}`,
    );
  },
);
