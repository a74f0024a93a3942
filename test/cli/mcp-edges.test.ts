import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, gitRepo, lanes, lanesEnv, run } from '../helpers/env.js';
import { call, errorCode, mcpAgent, textOf } from '../helpers/mcp.js';

const MiB = 2 ** 20;

test(
  'an 11 MiB handoff (under lanes 16 MiB limit, over the SDK stdio default of 10) is written whole',
  { timeout: 120_000 },
  async () => {
    const repo = gitRepo();
    const env = lanesEnv();
    const { client } = await mcpAgent('mcp-big', repo, env);
    const content = 'x'.repeat(11 * MiB);
    const put = await call(client, 'handoff_put', { name: 'big.txt', content });
    assert.equal(put.isError, undefined, textOf(put));
    const { session, size } = put.structuredContent as { session: string; size: number };
    assert.equal(size, content.length);
    // Read back through the CLI: an 11 MiB answer would be over the SDK client's own 10 MiB buffer.
    const got = await lanes(['handoff', 'get', 'big.txt', '--session', session], { env, cwd: repo });
    assert.equal(got.code, 0, got.stderr);
    assert.equal(got.stdout, content);
  },
);

test(
  'a message over the limit is answered with an error and the server keeps serving',
  { timeout: 120_000 },
  async () => {
    const repo = gitRepo();
    const { client, stderr } = await mcpAgent('mcp-huge', repo, lanesEnv());
    await assert.rejects(
      client.callTool(
        { name: 'handoff_put', arguments: { name: 'huge.txt', content: 'y'.repeat(50 * MiB) } },
        undefined,
        {
          timeout: 60_000,
        },
      ),
      (e: Error) => /larger than 48 MiB/.test(e.message),
    );
    const after = await call(client, 'whoami');
    assert.equal(after.isError, undefined, `still serving: ${textOf(after)} ${stderr()}`);
    const none = await call(client, 'handoff_get', { name: 'huge.txt' });
    assert.equal(errorCode(none), 'E_NOT_FOUND', 'nothing was written');
  },
);

test('handoff_put with base64 true refuses content that is not base64, and writes nothing', async () => {
  const repo = gitRepo();
  const { client } = await mcpAgent('mcp-b64', repo, lanesEnv());
  for (const content of ['not base64!!', 'QUJD=', 'QR==', 'QUJDRA']) {
    const r = await call(client, 'handoff_put', { name: 'bin', content, base64: true });
    assert.equal(errorCode(r), 'E_USAGE', `${content}: ${textOf(r)}`);
    assert.match(textOf(r), /not valid base64.*nothing was written/);
  }
  assert.equal(errorCode(await call(client, 'handoff_get', { name: 'bin' })), 'E_NOT_FOUND');
  const ok = await call(client, 'handoff_put', { name: 'bin', content: 'AAEC\n/w==', base64: true });
  assert.equal(ok.isError, undefined, textOf(ok));
  const back = await call(client, 'handoff_get', { name: 'bin' });
  assert.deepEqual(back.structuredContent, {
    ...(back.structuredContent as object),
    content: 'AAEC/w==',
    base64: true,
  });
});

test('refusals at the MCP door are journaled with who and why: a held claim, a wrong-owner handoff, a commit over a claim', async () => {
  const repo = gitRepo();
  const env = lanesEnv();
  const [a, b] = await Promise.all([mcpAgent('refuse-a', repo, env), mcpAgent('refuse-b', repo, env)]);
  assert.equal((await call(a.client, 'claim', { resources: ['ticket:R-1', 'path:README.md'] })).isError, undefined);
  const held = await call(b.client, 'claim', { resources: ['ticket:R-1'] });
  assert.equal(errorCode(held), 'E_CLAIM_HELD');
  writeFileSync(join(repo, 'README.md'), 'changed by b\n');
  const commit = await call(b.client, 'commit', { paths: ['README.md'], message: 'b takes it' });
  assert.equal(errorCode(commit), 'E_CLAIM_HELD', textOf(commit));
  // A's handoff planted where B's own would be: B reads it as its own and must be refused.
  const put = await call(a.client, 'handoff_put', { name: 'meta.json', content: 'A data' });
  const aPath = (put.structuredContent as { path: string }).path;
  const mine = await call(b.client, 'handoff_put', { name: 'x', content: 'b' });
  copyFileSync(aPath, join((mine.structuredContent as { path: string }).path, '..', 'meta.json'));
  const wrong = await call(b.client, 'handoff_get', { name: 'meta.json' });
  assert.equal(errorCode(wrong), 'E_WRONG_OWNER', textOf(wrong));
  assert.doesNotMatch(JSON.stringify(wrong), /A data/, 'nothing of the foreign data is answered');

  const log = (
    await lanes(['log', '--json', '--kind', 'claim.refuse', '--kind', 'commit.refuse', '--kind', 'handoff.refuse'], {
      env,
      cwd: repo,
    })
  ).stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { kind: string; session: string; details: Record<string, unknown> });
  assert.deepEqual(
    log.map((e) => [e.kind, e.session]),
    [
      ['claim.refuse', 'claude-code:refuse-b'],
      ['commit.refuse', 'claude-code:refuse-b'],
      ['handoff.refuse', 'claude-code:refuse-b'],
    ],
  );
});

test('the sessions tool is bounded: live sessions and the dead ones holding claims, 20 claims each with the rest counted, the others counted', async () => {
  const repo = gitRepo();
  const env = lanesEnv();
  // A process that opens sessions, claims 30 paths in one of them, and exits without ending any:
  // its 25 sessions are dead (their owner is gone), one of them still holding claims.
  const script = `import { openLanes } from ${JSON.stringify(join(CLI, '..', 'index.js'))};
    const l = await openLanes({ notice: false, session: null, cwd: ${JSON.stringify(repo)} });
    for (let i = 0; i < 25; i++) {
      const { id } = await l.sessions.start({ pid: process.pid, label: 'gone-' + i });
      if (i === 0) await l.claims.claim(Array.from({ length: 30 }, (_, k) => 'path:dir' + String(k).padStart(2, '0') + '/'), { session: id });
    }
    process.exit(0);`;
  const seeded = await run(process.execPath, ['--input-type=module', '-e', script], { env, cwd: repo });
  assert.equal(seeded.code, 0, seeded.stderr);
  const { client } = await mcpAgent('mcp-bounded', repo, env);
  const r = await call(client, 'sessions');
  const data = r.structuredContent as {
    sessions: { id: string; state: string; claims: unknown[]; claimCount: number }[];
    notShown: number;
  };
  assert.deepEqual(
    data.sessions.map((s) => [s.state, s.claims.length, s.claimCount]),
    [
      ['dead', 20, 30],
      ['live', 0, 0],
    ],
  );
  assert.equal(data.notShown, 24, 'the dead sessions without claims or work are counted, not listed');
  assert.match(textOf(r), /claims: path:dir00\/, .*path:dir19\/ and 10 more/);
  assert.match(textOf(r), /24 more not shown: `lanes ls --all`/);
  const all = await call(client, 'sessions', { all: true });
  assert.equal((all.structuredContent as { sessions: unknown[] }).sessions.length, 26);
});

test('2,000 pipelined requests to a reader that is not reading: every answer comes, and no listener warning', async () => {
  // Each answer that found the pipe full waited on a 'drain' listener of its own: past ten,
  // Node printed MaxListenersExceededWarning into the agent's MCP log.
  const repo = gitRepo();
  const child = spawn(process.execPath, [CLI, 'mcp'], { cwd: repo, env: lanesEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  child.stdout.pause();
  const N = 2000;
  const lines = [
    {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    ...Array.from({ length: N }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'tools/list' })),
  ];
  // The write's callback: the server has read all but what a pipe holds, while nobody reads its answers.
  await new Promise<void>((resolve) =>
    child.stdin.write(lines.map((l) => JSON.stringify(l)).join('\n') + '\n', () => resolve()),
  );
  let answers = 0;
  let buffer = '';
  const all = new Promise<void>((resolve) =>
    child.stdout.on('data', (d: Buffer) => {
      buffer += d.toString();
      const parts = buffer.split('\n');
      buffer = parts.pop()!;
      answers += parts.filter((p) => p.includes('"result"')).length;
      if (answers >= N + 1) resolve();
    }),
  );
  child.stdout.resume();
  await all;
  child.stdin.end();
  await new Promise((r) => child.on('exit', r));
  assert.equal(answers, N + 1);
  assert.doesNotMatch(err, /MaxListenersExceededWarning|memory leak/);
});
