import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, gitRepo, lanes, lanesEnv, run, tmp } from '../helpers/env.js';
import { fixture } from '../helpers/hooks.js';

// Many agents ship their entry as `…/cli.cjs` (or run from a `dist/cli.cjs`). Only lanes' own
// binary is lanes: an agent of that name must own the session its hooks register.
test('an agent run as `node …/cli.cjs` owns the session its hook registers; lanes is not mistaken for it', async () => {
  const repo = gitRepo();
  const env = lanesEnv();
  const dist = join(tmp('lanes-other-agent-'), 'node_modules', 'some-agent', 'dist');
  mkdirSync(dist, { recursive: true });
  writeFileSync(join(dist, '..', 'package.json'), JSON.stringify({ name: 'some-agent' }));
  const payload = JSON.stringify(fixture('claude-code', 'session-start', repo, 'agent-cli-cjs'));
  writeFileSync(
    join(dist, 'cli.cjs'),
    `const { execFileSync } = require('node:child_process');
const out = execFileSync('sh', ['-c', ${JSON.stringify(`"${process.execPath}" "${CLI}" hook claude-code session-start`)}], { input: ${JSON.stringify(payload)} });
process.stdout.write(JSON.stringify({ pid: process.pid, hook: out.toString() }) + '\\n');
`,
  );
  const agent = await run(process.execPath, [join(dist, 'cli.cjs')], { env, cwd: repo });
  assert.equal(agent.code, 0, agent.stderr);
  const { pid } = JSON.parse(agent.stdout) as { pid: number };
  const ls = JSON.parse((await lanes(['ls', '--all', '--json'], { env, cwd: repo })).stdout) as {
    id: string;
    owner: { pid: number };
  }[];
  const s = ls.find((x) => x.id === 'claude-code:agent-cli-cjs');
  assert.ok(s, JSON.stringify(ls));
  assert.equal(s.owner.pid, pid, 'the agent process, not the one that started it');
});
