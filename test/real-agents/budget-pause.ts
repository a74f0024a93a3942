import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { lanes, tmp } from '../helpers/env.js';
import { FakeModel } from './fake-model/server.js';
import type { Protocol, ToolCall, Turn } from './fake-model/server.js';
import { webhook } from './webhook.js';
import type { AgentRun, World } from './world.js';

// A budget reached mid-run (issue 50, item 2) with an agent's released CLI against a scripted model
// that answers each request with 100 in / 10 out: the run's budget is 250 tokens (LANES_BUDGET, as
// lanes new --budget gives it). The model asks for tool calls until lanes' pause words come back in
// a request; then the person runs `lanes continue` (while the agent waits on its model), the model
// asks for one more call, which goes through, and says it is done. The person's webhook is told.

export const PAUSE = /reached its budget: [0-9]{3} tokens of 250 tokens \(tokens\)\. It is paused\. Stop working now/;

export interface PauseRun {
  model: FakeModel;
  url: string;
  /** The agent's environment additions: the run's budget and the user config naming the webhook. */
  env: Record<string, string>;
  /** After the run: what it showed. */
  check(run: AgentRun, afterContinue: RegExp): Promise<void>;
}

export async function pauseRun(
  t: { after(fn: () => void | Promise<void>): void },
  w: World,
  protocol: Protocol,
  name: string,
  shell: (command: string) => ToolCall,
  /** Resolves once the agent's own record holds its model's first `answered` answers (an agent that writes it late). */
  recorded?: (answered: number) => Promise<void>,
): Promise<PauseRun> {
  const { hooks, told } = await webhook(t);
  const config = join(tmp('lanes-config-'), 'config.toml');
  writeFileSync(config, `[notify]\nwebhook = "${hooks}"\n`);
  const lanesEnv = { ...w.env, LANES_CONFIG: config };
  const script: Turn[] = Array.from({ length: 8 }, (_, i) => ({ tools: [shell(`echo call-${i + 1}`)] }));
  const model = new FakeModel(protocol, script, name);
  const url = await model.start();
  t.after(() => model.stop());
  let continued = '';
  let pausedAt = -1;
  model.beforeTurn = async (index) => {
    if (recorded) await recorded(index);
    const asked = JSON.stringify(model.mainLoop()[index]);
    if (pausedAt >= 0 || !PAUSE.test(asked)) return;
    pausedAt = index;
    const session = /lanes continue (\S+?)`/.exec(asked)?.[1];
    const r = await lanes(['continue', session ?? '?'], { env: lanesEnv, cwd: w.repo });
    continued = `${r.code} ${r.stdout}${r.stderr}`;
    script[index] = { tools: [shell('echo after-continue')] };
    script[index + 1] = { text: 'Done.' };
  };
  return {
    model,
    url,
    env: { LANES_BUDGET: 'tokens=250', LANES_CONFIG: config },
    async check(run, afterContinue) {
      const loop = model.mainLoop().map((b) => JSON.stringify(b));
      const said = `agent exit ${run.code}; stdout ${run.stdout.slice(-1500)}; stderr ${run.stderr.slice(-1500)}`;
      // 110 tokens a request: a check sees 330 at the 3rd call, or (a record written late) the 4th.
      assert.ok(pausedAt === 3 || pausedAt === 4, `the model was told of the pause in request ${pausedAt}: ${said}`);
      assert.doesNotMatch(loop[pausedAt - 1]!, PAUSE, 'told once, in the request after the denied call');
      assert.match(continued, /^0 /, `lanes continue: ${continued}`);
      // After lanes continue, the next call ran: its output is in the last request, and it was the last.
      assert.equal(loop.length, pausedAt + 2, said);
      assert.match(loop[pausedAt + 1]!, afterContinue, `the run did not go on: ${loop.at(-1)!.slice(-1500)}`);
      assert.equal(run.code, 0, said);
      const kinds = (await lanes(['log', '--kind', 'budget', '--json'], { env: lanesEnv, cwd: w.repo })).stdout
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
    },
  };
}
