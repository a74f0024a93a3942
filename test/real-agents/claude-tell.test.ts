import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { machineNodeOnly } from '../helpers/needs.js';
import { CLI } from '../helpers/env.js';
import { anthropic } from './fake-model/anthropic.js';
import { FakeModel } from './fake-model/server.js';
import { installedOrSkip, pin } from './install.js';
import { agentEnv, claudeEnv, runAgent, world } from './world.js';

// lanes tell (issue 49, item 2) with Claude Code's released CLI, headless against a local Messages
// API: a message told to the agent's session while it works reaches its model in the request after
// its next tool call (PreToolUse's additionalContext), and only then. The message is told from the
// agent's own shell (the scripted model runs `lanes tell "$LANES_SESSION" …`): its own tool call
// carries the words too, so the proof is lanes' delivery sentence, absent before the next call.
const { version } = pin('claude-code');
const MARK = 'TELL-MARK-5e1: rebase on main before you commit';

test(
  `Claude Code ${version} (real CLI, scripted model): a lanes tell reaches the model after its next tool call`,
  { skip: machineNodeOnly("the agents' real CLIs"), timeout: 6 * 60_000 },
  async (t) => {
    const cli = installedOrSkip(t, 'claude-code');
    if (!cli) return;
    const w = await world('claude-code');
    const lanesCmd = `${process.execPath} ${CLI}`;
    const bash = (command: string) => ({ name: 'Bash', input: { command, description: 'run it' } });
    const model = new FakeModel(
      anthropic,
      [{ tools: [bash(`${lanesCmd} tell "$LANES_SESSION" '${MARK}'`)] }, { tools: [bash('true')] }, { text: 'Done.' }],
      'claude-code',
    );
    const url = await model.start();
    t.after(() => model.stop());
    writeFileSync(join(w.repo, '.claude', 'settings.local.json'), JSON.stringify({ enabledMcpjsonServers: [] }));
    const run = await runAgent(
      cli.bin,
      ['-p', 'Do the task.', '--permission-mode', 'acceptEdits', '--allowedTools', 'Bash', '--output-format', 'json'],
      {
        cwd: w.repo,
        timeoutMs: 3 * 60_000,
        env: agentEnv(w, url, claudeEnv(url)),
      },
    );
    const loop = model.mainLoop().map((b) => JSON.stringify(b));
    const said = `agent exit ${run.code}; stdout ${run.stdout.slice(-1500)}; stderr ${run.stderr.slice(-1500)}`;
    assert.ok(loop.length >= 3, `the agent asked its model ${loop.length} times: ${said}`);
    const delivered = /A message for you from session [^\s"\\]+ \(lanes tell, [^)]+\): TELL-MARK-5e1: rebase on main/;
    // Request 1 holds the tell's own command and its output (pending), not the delivery.
    assert.match(loop[1]!, /told [^\s"\\]+ \(#\d+\): pending/, `the tell ran: ${loop[1]!.slice(-2000)}`);
    assert.doesNotMatch(loop[1]!, delivered);
    // Request 2 follows the next tool call: lanes' delivery is in what the model gets.
    assert.match(loop[2]!, delivered, `not delivered to the model: ${loop[2]!.slice(-3000)}`);
    const session = /You are session ([^\s"\\]+)|lanes: you are session ([^\s"\\]+)/.exec(loop[0]!);
    t.diagnostic(`real agent claude-code@${version}: ran (${cli.bin}), session ${session?.[1] ?? session?.[2] ?? '?'}`);
  },
);
