import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { machineNodeOnly, skipOrFail } from '../helpers/needs.js';
import { lanes, tmp } from '../helpers/env.js';
import { anthropic } from './fake-model/anthropic.js';
import { FakeModel } from './fake-model/server.js';
import type { Turn } from './fake-model/server.js';
import { ensureAgent, pin } from './install.js';
import { agentEnv, claudeEnv, runAgent, world } from './world.js';

// A budget reached mid-run (issue 50, item 2) with Claude Code's released CLI, headless against a
// local Messages API that answers each request with 100 in / 10 out: the run's budget is 250
// tokens (LANES_BUDGET, as lanes new --budget gives it). Once its transcript says 330, its next
// tool call is denied with lanes' pause words, which the model's next request carries; the person
// is notified (a webhook); while the agent waits on its model the person runs `lanes continue`,
// and the next tool call goes through and the run finishes.
const { version } = pin('claude-code');

test(
  `Claude Code ${version} (real CLI, scripted model): a budget pauses it mid-run; lanes continue lets it finish`,
  { skip: machineNodeOnly("the agents' real CLIs"), timeout: 6 * 60_000 },
  async (t) => {
    const cli = ensureAgent('claude-code');
    if (!cli.ok) {
      t.diagnostic(`real agent claude-code@${version}: NOT RUN, could not install: ${cli.reason}`);
      skipOrFail(t, 'the npm registry', `claude-code@${version} could not be installed: ${cli.reason}`);
      return;
    }
    const w = await world('claude-code');
    // The person's webhook: what lanes tells them.
    const told: string[] = [];
    const hookServer = createServer((req, res) => {
      let b = '';
      req.on('data', (d: Buffer) => (b += d.toString()));
      req.on('end', () => {
        told.push(b);
        res.end('ok');
      });
    });
    await new Promise<void>((r) => hookServer.listen(0, '127.0.0.1', r));
    t.after(() => hookServer.close());
    const config = join(tmp('lanes-config-'), 'config.toml');
    const port = (hookServer.address() as AddressInfo).port;
    writeFileSync(config, `[notify]\nwebhook = "http://127.0.0.1:${port}/lanes"\n`);
    const env = { ...w.env, LANES_CONFIG: config };
    const bash = (command: string) => ({ name: 'Bash', input: { command, description: 'run it' } });
    // Tool calls until the pause; then one more after lanes continue, and done. Claude Code writes a
    // model's answer to its transcript about when it runs the tool, so a check sees it or not yet:
    // the pause comes at the 3rd or 4th call (250 tokens), never before the 3rd.
    const script: Turn[] = Array.from({ length: 8 }, (_, i) => ({ tools: [bash(`echo call-${i + 1}`)] }));
    const model = new FakeModel(anthropic, script, 'claude-code');
    const url = await model.start();
    t.after(() => model.stop());
    const pause = /reached its budget: [0-9]{3} tokens of 250 tokens \(tokens\)\. It is paused\. Stop working now/;
    let continued = '';
    let pausedAt = -1;
    model.beforeTurn = async (index) => {
      const asked = JSON.stringify(model.mainLoop()[index]);
      if (pausedAt >= 0 || !pause.test(asked)) return;
      pausedAt = index;
      const session = /lanes continue (\S+)`/.exec(asked)?.[1];
      const r = await lanes(['continue', session ?? '?'], { env, cwd: w.repo });
      continued = `${r.code} ${r.stdout}${r.stderr}`;
      script[index] = { tools: [bash('echo after-continue')] };
      script[index + 1] = { text: 'Done.' };
    };
    writeFileSync(join(w.repo, '.claude', 'settings.local.json'), JSON.stringify({ enabledMcpjsonServers: [] }));
    const run = await runAgent(
      cli.bin,
      ['-p', 'Do the task.', '--permission-mode', 'acceptEdits', '--allowedTools', 'Bash', '--output-format', 'json'],
      {
        cwd: w.repo,
        timeoutMs: 3 * 60_000,
        env: { ...agentEnv(w, url, claudeEnv(url)), LANES_BUDGET: 'tokens=250', LANES_CONFIG: config },
      },
    );
    const loop = model.mainLoop().map((b) => JSON.stringify(b));
    const said = `agent exit ${run.code}; stdout ${run.stdout.slice(-1500)}; stderr ${run.stderr.slice(-1500)}`;
    assert.ok(pausedAt === 3 || pausedAt === 4, `the model was told of the pause in request ${pausedAt}: ${said}`);
    assert.doesNotMatch(loop[pausedAt - 1]!, pause, 'told once, in the request after the denied call');
    assert.match(continued, /^0 /, `lanes continue: ${continued}`);
    // After lanes continue, the next call ran: its output is in the last request, and it was the last.
    assert.equal(loop.length, pausedAt + 2, said);
    assert.match(
      loop[pausedAt + 1]!,
      /"content":"after-continue/,
      `the run did not go on: ${loop.at(-1)!.slice(-1500)}`,
    );
    assert.equal(run.code, 0, said);
    const kinds = (await lanes(['log', '--kind', 'budget', '--json'], { env, cwd: w.repo })).stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { kind: string }).kind);
    assert.deepEqual(kinds, ['budget.pause', 'budget.continue']);
    for (let i = 0; i < 100 && !told.some((b) => /reached a budget/.test(b)); i++)
      await new Promise((r) => setTimeout(r, 100));
    assert.ok(
      told.some((b) => /reached a budget/.test(b) && /tokens of 250 tokens/.test(b)),
      `notified: ${told.join(' | ')}`,
    );
    t.diagnostic(`real agent claude-code@${version}: ran (${cli.bin})`);
  },
);
