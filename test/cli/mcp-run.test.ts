import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI, FIXTURES, gitRepo, lanes, lanesEnv } from '../helpers/env.js';
import { call, textOf } from '../helpers/mcp.js';

// Issue 44, item 1 through the MCP door: an agent a lanes run started (here `lanes start --ticket T
// -- AGENT`, the agent a stand-in that runs its SessionStart hook, then `lanes mcp`, through the
// official SDK's client over stdio) acts as the run's session in its MCP tools too: whoami names
// the run, a claim is the run's, and no second session is registered beside it.

test("an agent started by a lanes run: its MCP tools act as the run's session", async () => {
  const repo = gitRepo();
  const env = { ...lanesEnv(), LANES_CLI: CLI };
  const AGENT = '7e570000-0000-4000-8000-00000000c0de';
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'start', '--ticket', 'SHOP-11', '--', process.execPath, join(FIXTURES, 'fake-agent.mjs'), AGENT, repo],
    env,
    cwd: repo,
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const client = new Client({ name: 'lanes-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    const ls = JSON.parse((await lanes(['ls', '--json'], { env, cwd: repo })).stdout) as {
      id: string;
      ticket: string;
      conversation: string | null;
    }[];
    assert.equal(ls.length, 1, `one session for the run: ${JSON.stringify(ls)} ${err}`);
    const run = ls[0]!;
    assert.equal(run.ticket, 'SHOP-11');
    assert.equal(run.conversation, `claude-code:${AGENT}`);
    const who = textOf(await call(client, 'whoami'));
    assert.match(who, new RegExp(run.id), who);
    const claimed = await call(client, 'claim', { resources: ['path:src/'] });
    assert.ok(!claimed.isError, textOf(claimed));
    const claims = JSON.parse((await lanes(['claims', '--json'], { env, cwd: repo })).stdout) as {
      claim: { sessionId: string; name: string };
    }[];
    assert.deepEqual(claims.map((c) => [c.claim.name, c.claim.sessionId]).sort(), [
      ['SHOP-11', run.id],
      ['src/', run.id],
    ]);
  } finally {
    await client.close();
  }
});
