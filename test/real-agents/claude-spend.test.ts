import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { machineNodeOnly } from '../helpers/needs.js';
import { lanes } from '../helpers/env.js';
import { anthropic } from './fake-model/anthropic.js';
import { FakeModel } from './fake-model/server.js';
import { installedOrSkip, pin } from './install.js';
import { agentEnv, claudeEnv, runAgent, world } from './world.js';

// What a session spent (issue 50, item 1) with Claude Code's released CLI, headless against a
// local Messages API that answers every request with usage 100 in / 10 out: lanes' hooks name
// the transcript, and the report counts each main-loop request once, however many entries Claude
// Code wrote for it. The transcript is kept (LANES_RECORD_FIXTURES=1) as a fixture of its version.
const { version } = pin('claude-code');

test(
  `Claude Code ${version} (real CLI, scripted model): the report counts the tokens its transcript records`,
  { skip: machineNodeOnly("the agents' real CLIs"), timeout: 6 * 60_000 },
  async (t) => {
    const cli = installedOrSkip(t, 'claude-code');
    if (!cli) return;
    const w = await world('claude-code');
    const bash = (command: string) => ({ name: 'Bash', input: { command, description: 'run it' } });
    const model = new FakeModel(
      anthropic,
      [{ tools: [bash('true')] }, { tools: [bash('echo two')] }, { text: 'Done.' }],
      'claude-code',
    );
    const url = await model.start();
    t.after(() => model.stop());
    writeFileSync(join(w.repo, '.claude', 'settings.local.json'), JSON.stringify({ enabledMcpjsonServers: [] }));
    const run = await runAgent(
      cli.bin,
      ['-p', 'Do the task.', '--permission-mode', 'acceptEdits', '--allowedTools', 'Bash', '--output-format', 'json'],
      { cwd: w.repo, timeoutMs: 3 * 60_000, env: agentEnv(w, url, claudeEnv(url)) },
    );
    const loop = model.mainLoop();
    const said = `agent exit ${run.code}; stdout ${run.stdout.slice(-1500)}; stderr ${run.stderr.slice(-1500)}`;
    assert.equal(loop.length, 3, `the agent asked its model ${loop.length} times: ${said}`);
    const r = await lanes(['report', '--json'], { env: w.env, cwd: w.repo });
    assert.equal(r.code, 0, r.stderr);
    const spend = (
      JSON.parse(r.stdout) as {
        spend: { sessions: { agent: string; measured: boolean; tokens: { input: number; output: number } }[] };
      }
    ).spend;
    const measured = spend.sessions.filter((s) => s.measured);
    assert.equal(measured.length, 1, JSON.stringify(spend.sessions));
    // Each of the 3 requests: 100 in; out as the stream's last word (message_delta: 10).
    assert.equal(measured[0]!.tokens.input, 300, JSON.stringify(measured[0]));
    assert.equal(measured[0]!.tokens.output, 30, JSON.stringify(measured[0]));
    const session = (
      JSON.parse(r.stdout) as { spend: { sessions: { session: string; measured: boolean }[] } }
    ).spend.sessions.find((s) => s.measured)!.session;
    const states = await lanes(['state', 'get', 'lanes:records', '--session', session], { env: w.env, cwd: w.repo });
    const transcript = /"path":\s*"([^"]+\.jsonl)"/.exec(states.stdout)?.[1];
    assert.ok(transcript, `the hooks named the transcript: ${states.stdout} ${states.stderr}`);
    if (process.env['LANES_RECORD_FIXTURES'] === '1') {
      const dir = join(import.meta.dirname, '..', 'fixtures', 'claude-transcript');
      mkdirSync(dir, { recursive: true });
      copyFileSync(transcript, join(dir, `three-requests-${version}.jsonl`));
    }
    t.diagnostic(`real agent claude-code@${version}: ran (${cli.bin}); transcript ${transcript}`);
  },
);
