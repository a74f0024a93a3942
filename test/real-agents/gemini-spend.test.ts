import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { machineNodeOnly } from '../helpers/needs.js';
import { lanes } from '../helpers/env.js';
import { gemini } from './fake-model/gemini.js';
import { FakeModel } from './fake-model/server.js';
import { installedOrSkip, pin } from './install.js';
import { agentEnv, runAgent, world } from './world.js';

// What a session spent (issue 50, item 1) with Gemini CLI's released CLI, headless against a local
// Gemini API that answers each request with usageMetadata 100 prompt / 10 candidates: lanes' hooks
// name its chat record, and the report counts each main-loop request once though Gemini CLI writes
// a message again as it grows. The chat is kept (LANES_RECORD_FIXTURES=1) as a fixture of its version.
const { version } = pin('gemini');

test(
  `Gemini CLI ${version} (real CLI, scripted model): the report counts the tokens its chat records`,
  { skip: machineNodeOnly("the agents' real CLIs"), timeout: 6 * 60_000 },
  async (t) => {
    const cli = installedOrSkip(t, 'gemini');
    if (!cli) return;
    const w = await world('gemini');
    const shell = (command: string) => ({ name: 'run_shell_command', input: { command, description: 'run it' } });
    const model = new FakeModel(
      gemini,
      [{ tools: [shell('echo one')] }, { tools: [shell('echo two')] }, { text: 'Done.' }],
      'gemini',
    );
    const url = await model.start();
    t.after(() => model.stop());
    const dir = join(w.home, '.gemini');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'settings.json'),
      JSON.stringify({
        security: { auth: { selectedType: 'gemini-api-key' } },
        privacy: { usageStatisticsEnabled: false },
      }),
    );
    writeFileSync(join(dir, 'trustedFolders.json'), JSON.stringify({ [w.repo]: 'TRUST_FOLDER' }));
    const run = await runAgent(
      cli.bin,
      ['-p', 'Do the task.', '--approval-mode', 'yolo', '-m', 'gemini-2.5-flash', '--output-format', 'json'],
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
    const loop = model.mainLoop();
    const said = `agent exit ${run.code}; stdout ${run.stdout.slice(-1500)}; stderr ${run.stderr.slice(-1500)}`;
    assert.equal(loop.length, 3, `the agent asked its model ${loop.length} times: ${said}`);
    const r = await lanes(['report', '--json'], { env: w.env, cwd: w.repo });
    assert.equal(r.code, 0, r.stderr);
    const spend = (
      JSON.parse(r.stdout) as {
        spend: {
          sessions: {
            session: string;
            agent: string;
            measured: boolean;
            tokens: { input: number; output: number; toolCalls: number };
          }[];
        };
      }
    ).spend;
    const measured = spend.sessions.filter((s) => s.measured && s.agent === 'gemini');
    assert.equal(measured.length, 1, JSON.stringify(spend.sessions));
    assert.equal(measured[0]!.tokens.input, 300, JSON.stringify(measured[0]));
    assert.equal(measured[0]!.tokens.output, 30, JSON.stringify(measured[0]));
    assert.equal(measured[0]!.tokens.toolCalls, 2, JSON.stringify(measured[0]));
    const states = await lanes(['state', 'get', 'lanes:records', '--session', measured[0]!.session], {
      env: w.env,
      cwd: w.repo,
    });
    const chat = /"path":\s*"([^"]+)"/.exec(states.stdout)?.[1];
    assert.ok(chat, `the hooks named the chat: ${states.stdout} ${states.stderr}`);
    if (process.env['LANES_RECORD_FIXTURES'] === '1') {
      const out = join(import.meta.dirname, '..', 'fixtures', 'gemini-chat');
      mkdirSync(out, { recursive: true });
      copyFileSync(chat, join(out, `three-requests-${version}.jsonl`));
    }
    t.diagnostic(`real agent gemini@${version}: ran (${cli.bin}); chat ${chat}`);
  },
);
