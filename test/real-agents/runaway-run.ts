import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { lanes, lanesChild, tmp } from '../helpers/env.js';
import { webhook } from './webhook.js';
import { FakeModel } from './fake-model/server.js';
import type { Protocol, ToolCall, Turn } from './fake-model/server.js';
import type { AgentRun, World } from './world.js';

// A runaway (issue 50, item 3) with an agent's released CLI against a scripted model: the model
// asks for the same failing shell command three times (`runaway_repeats = 3` in the user config),
// the per-host watcher (running beside it, as users have it) reads the agent's own record and
// flags it: journal budget.runaway with the repeated call as evidence, the person's webhook told.
// The model's 4th request waits until the flag is there (or 60 s), then it says it is done.

export const FAILING = 'ls /lanes-runaway-no-such-dir';

export interface RunawayRun {
  url: string;
  /** The agent's environment additions: the user config (runaway_repeats, the webhook). */
  env: Record<string, string>;
  check(run: AgentRun): Promise<void>;
}

type Flag = { why: string; what: string };

export async function runawayRun(
  t: { after(fn: () => void | Promise<void>): void },
  w: World,
  protocol: Protocol,
  name: string,
  shell: (command: string) => ToolCall,
): Promise<RunawayRun> {
  const { hooks, told } = await webhook(t);
  const config = join(tmp('lanes-config-'), 'config.toml');
  writeFileSync(config, `[budget]\nrunaway_repeats = 3\nrunaway_idle = "0"\n\n[notify]\nwebhook = "${hooks}"\n`);
  const lanesEnv = { ...w.env, LANES_CONFIG: config };
  const opts = { env: lanesEnv, cwd: w.repo };
  const watcher = lanesChild(['watch', '--every', '100ms', '--idle', '120s'], opts);
  t.after(() => void watcher.proc.kill());
  const flags = async (): Promise<Flag[]> =>
    (await lanes(['log', '--kind', 'budget.runaway', '--json'], opts)).stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { details: Flag }).details);
  const script: Turn[] = [
    { tools: [shell(FAILING)] },
    { tools: [shell(FAILING)] },
    { tools: [shell(FAILING)] },
    { text: 'Done.' },
  ];
  let before: Flag[] | null = null;
  let flagged: Flag[] = [];
  const model = new FakeModel(protocol, script, name);
  model.beforeTurn = async (index) => {
    if (index === 2) before = await flags();
    if (index !== 3) return;
    for (let i = 0; i < 600 && !(flagged = await flags()).length; i++) await new Promise((r) => setTimeout(r, 100));
  };
  const url = await model.start();
  t.after(() => model.stop());
  return {
    url,
    env: { LANES_CONFIG: config },
    async check(run) {
      const said = `agent exit ${run.code}; stdout ${run.stdout.slice(-1500)}; stderr ${run.stderr.slice(-1500)}`;
      assert.equal(run.code, 0, said);
      assert.equal(model.mainLoop().length, 4, said);
      // Two failures in a row are not yet a runaway; the third is, flagged once with the call.
      assert.deepEqual(before, [], 'not flagged after two failures');
      assert.equal(flagged.length, 1, `flagged once: ${JSON.stringify(flagged)}; watcher: ${watcher.stderr}`);
      assert.equal(flagged[0]!.why, 'repeats');
      assert.match(flagged[0]!.what, /^the same tool call failed 3 times in a row: \S+ .*lanes-runaway-no-such-dir/);
      for (let i = 0; i < 100 && !told.some((b) => /runaway/.test(b)); i++)
        await new Promise((r) => setTimeout(r, 100));
      assert.ok(
        told.some((b) => /runaway: the same tool call failed 3 times/.test(b)),
        `notified: ${told.join(' | ')}`,
      );
    },
  };
}
