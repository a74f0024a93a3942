import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gitRepo, lanes, lanesEnv } from '../helpers/env.js';
import { call, errorCode, mcpAgent, textOf } from '../helpers/mcp.js';

// `lanes mcp` through the MCP SDK's own Client over stdio, started by a fake agent process that
// ran its session-start hook first, as Claude Code does: the server acts as that hook's session.

const TOOLS = [
  'whoami',
  'sessions',
  'claim',
  'release',
  'check',
  'claims',
  'conflicts',
  'handoff_put',
  'handoff_get',
  'commit',
  'snapshot',
  'ready',
  'journal',
];

test('every tool is listed with a description and schemas, and acts as the session the hooks registered', async () => {
  const repo = gitRepo();
  const env = lanesEnv();
  const { client } = await mcpAgent('mcp-a1', repo, env);
  const listed = (await client.listTools()).tools;
  assert.deepEqual(listed.map((t) => t.name).sort(), [...TOOLS].sort());
  for (const t of listed) {
    assert.ok((t.description ?? '').length > 60, `${t.name} has a description for a model`);
    assert.equal(t.inputSchema.type, 'object', `${t.name} input schema`);
    assert.equal(t.outputSchema?.type, 'object', `${t.name} output schema`);
  }

  const who = await call(client, 'whoami');
  assert.equal(who.isError, undefined, textOf(who));
  const me = (who.structuredContent as { session: { id: string; worktree: string } }).session;
  assert.equal(me.id, 'claude-code:mcp-a1', 'the session its hooks registered');
  assert.equal(me.worktree, repo);
  assert.match(textOf(who), /You are session claude-code:mcp-a1/);
  // A tool call cannot name another session: unknown arguments are not a way in.
  const other = await call(client, 'whoami', { session: 'claude-code:someone-else' });
  assert.equal((other.structuredContent as { session: { id: string } }).session.id, me.id);

  const claimed = await call(client, 'claim', { resources: ['path:src/', 'ticket:T-1'] });
  assert.equal(claimed.isError, undefined, textOf(claimed));
  assert.match(textOf(claimed), /claimed path:src\/ \(token \d+\)/);
  const checked = await call(client, 'check', { resource: 'path:src/a.ts' });
  assert.equal((checked.structuredContent as { heldByOther: boolean }).heldByOther, false);
  assert.match(textOf(checked), /held by you/);
  const cl = await call(client, 'claims');
  assert.equal((cl.structuredContent as { claims: unknown[] }).claims.length, 2);
  const ss = await call(client, 'sessions');
  assert.equal((ss.structuredContent as { you: string }).you, me.id);
  assert.match(textOf(ss), /\* claude-code:mcp-a1 \(live\)/);
  // The CLI sees the claims as the hook session's.
  const byCli = await lanes(['claims', '--json'], { env, cwd: repo });
  assert.match(byCli.stdout, /"sessionId": "claude-code:mcp-a1"/);

  const put = await call(client, 'handoff_put', { name: 'meta.json', content: '{"step":3}' });
  assert.equal((put.structuredContent as { session: string }).session, me.id);
  const got = await call(client, 'handoff_get', { name: 'meta.json' });
  assert.equal(textOf(got), '{"step":3}');
  assert.equal((got.structuredContent as { header: { session: string } }).header.session, me.id);

  writeFileSync(join(repo, 'mine.txt'), 'mine\n');
  writeFileSync(join(repo, 'theirs.txt'), 'theirs\n');
  execFileSync('git', ['add', 'theirs.txt'], { cwd: repo });
  const committed = await call(client, 'commit', { paths: ['mine.txt'], message: 'add mine' });
  assert.equal(committed.isError, undefined, textOf(committed));
  const files = (committed.structuredContent as { files: { path: string }[] }).files.map((f) => f.path);
  assert.deepEqual(files, ['mine.txt'], 'only the named path, not what was staged');
  assert.equal(execFileSync('git', ['diff', '--cached', '--name-only'], { cwd: repo }).toString(), 'theirs.txt\n');

  const snap = await call(client, 'snapshot');
  assert.equal((snap.structuredContent as { created: boolean }).created, true, textOf(snap));
  assert.match(textOf(snap), /refs\/lanes\/snapshots\/claude-code%3Amcp-a1\/1/);
  const conf = await call(client, 'conflicts');
  assert.equal(conf.isError, undefined, textOf(conf));
  assert.equal((conf.structuredContent as { found: boolean }).found, false);

  // Ready to land needs a ticket and a branch of its own: this session, in the main worktree, has neither.
  const rd = await call(client, 'ready');
  assert.equal(rd.isError, true, textOf(rd));
  assert.match(textOf(rd), /lanes lands only under a ticket claim|no branch of its own/);

  const rel = await call(client, 'release', { resources: ['path:src/', 'branch:nope'] });
  assert.match(textOf(rel), /released path:src\//);
  assert.match(textOf(rel), /not held by you: branch:nope/);

  // The journal holds what this session did, through the same library as lanes log.
  const j = await call(client, 'journal', { mine: true, kinds: ['claim', 'commit', 'snapshot'] });
  assert.equal(j.isError, undefined, textOf(j));
  assert.deepEqual(
    (j.structuredContent as { entries: { kind: string }[] }).entries.map((e) => e.kind),
    ['claim.grant', 'claim.grant', 'commit.intent', 'commit', 'snapshot', 'claim.release'],
  );
  assert.match(textOf(j), /claim\.grant claude-code:mcp-a1 \[T-1\]: path:src\//);
  const badKind = await call(client, 'journal', { kinds: ['nope'] });
  assert.equal(badKind.isError, true);
  assert.match(textOf(badKind), /E_USAGE/);
});

test('errors are tool errors with lanes code and the fix', async () => {
  const repo = gitRepo();
  const env = lanesEnv();
  const { client } = await mcpAgent('mcp-e1', repo, env);
  const bad = await call(client, 'claim', { resources: ['no-kind'] });
  assert.equal(bad.isError, true);
  assert.equal(errorCode(bad), 'E_BAD_RESOURCE');
  assert.match(textOf(bad), /^E_BAD_RESOURCE: .*\nfix: /);
  const missing = await call(client, 'handoff_get', { name: 'never-written' });
  assert.equal(errorCode(missing), 'E_NOT_FOUND', textOf(missing));
  const badName = await call(client, 'handoff_put', { name: '.hidden', content: 'x' });
  assert.equal(errorCode(badName), 'E_BAD_NAME', textOf(badName));
  const noArgs = await call(client, 'claim', {});
  assert.equal(noArgs.isError, true, 'input validated against the schema');
  assert.match(textOf(noArgs), /resources/);
});

test('two agents race for one claim through their MCP servers: exactly one gets it', async () => {
  const repo = gitRepo();
  const env = lanesEnv();
  const [a, b] = await Promise.all([mcpAgent('race-a', repo, env), mcpAgent('race-b', repo, env)]);
  const results = await Promise.all([
    call(a.client, 'claim', { resources: ['ticket:RACE-1'] }),
    call(b.client, 'claim', { resources: ['ticket:RACE-1'] }),
  ]);
  const winners = results.filter((r) => !r.isError);
  assert.equal(winners.length, 1, results.map(textOf).join(' | '));
  const loser = results.find((r) => r.isError)!;
  assert.equal(errorCode(loser), 'E_CLAIM_HELD');
  // The fix in tool terms, never a shell command.
  assert.match(textOf(loser), /\nfix: .*call claim again with waitSeconds: 60/);
  assert.doesNotMatch(textOf(loser), /lanes claim --wait/);
  const winner = results[0] === winners[0] ? 'claude-code:race-a' : 'claude-code:race-b';
  assert.match(textOf(loser), new RegExp(winner.replace(':', ':')));
  // A bounded wait gives up with E_TIMEOUT while the holder keeps it.
  const waiter = results[0] === winners[0] ? b.client : a.client;
  const timedOut = await call(waiter, 'claim', { resources: ['ticket:RACE-1'], waitSeconds: 0.3 });
  assert.equal(errorCode(timedOut), 'E_TIMEOUT', textOf(timedOut));
  const tooLong = await call(waiter, 'claim', { resources: ['ticket:RACE-1'], waitSeconds: 100000 });
  assert.equal(tooLong.isError, true, 'the wait is bounded by the schema');
});

test('without a hook session the server registers one for the agent process, and keeps it', async () => {
  const repo = gitRepo();
  const env = lanesEnv();
  const { client } = await mcpAgent('-', repo, env);
  const first = (await call(client, 'whoami')).structuredContent as {
    session: { id: string; agent: string };
    how: string;
  };
  assert.match(first.session.id, /^s-/);
  assert.equal(first.session.agent, 'claude-code');
  assert.match(first.how, /registered by lanes mcp/);
  const again = (await call(client, 'whoami')).structuredContent as { session: { id: string } };
  assert.equal(again.session.id, first.session.id);
  assert.equal(errorCode(await call(client, 'claim', { resources: ['ticket:MCP-OWN'] })), null);
  // The client goes away: the session the server registered for itself ends through the one end
  // path (snapshot first) and releases what it held; no dead `mcp` session is left holding claims.
  await client.close();
  let mine: { state: string; claims: unknown[] } | undefined;
  for (const deadline = Date.now() + 15_000; Date.now() < deadline;) {
    const all = JSON.parse((await lanes(['ls', '--all', '--json'], { env, cwd: repo })).stdout) as {
      id: string;
      state: string;
      endReason: string | null;
      claims: unknown[];
    }[];
    mine = all.find((x) => x.id === first.session.id);
    if (mine?.state === 'ended') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(mine?.state, 'ended', JSON.stringify(mine));
  assert.deepEqual(mine?.claims, []);
});

test('the server keeps its store handles but follows the agent to a new session (its /clear ends one and starts another)', async () => {
  const repo = gitRepo();
  const env = lanesEnv();
  const { client } = await mcpAgent('mcp-c1', repo, env);
  const first = (await call(client, 'whoami')).structuredContent as {
    session: { id: string; owner: { pid: number } };
  };
  assert.equal(first.session.id, 'claude-code:mcp-c1');
  // The agent's /clear: its SessionEnd ends the session, its SessionStart registers the next one.
  assert.equal((await lanes(['end', '--force', 'claude-code:mcp-c1'], { env, cwd: repo })).code, 0);
  const started = await lanes(['hook', 'claude-code', 'session-start'], {
    env: { ...env, CLAUDE_PID: String(first.session.owner.pid) },
    cwd: repo,
    input: JSON.stringify({ session_id: 'mcp-c2', cwd: repo, hook_event_name: 'SessionStart', source: 'clear' }),
  });
  assert.equal(started.code, 0, started.stderr);
  const next = (await call(client, 'whoami')).structuredContent as { session: { id: string } };
  assert.equal(next.session.id, 'claude-code:mcp-c2', 'the next call acts as the new session');
  const claimed = await call(client, 'claim', { resources: ['ticket:AFTER-CLEAR'] });
  assert.equal(errorCode(claimed), null, textOf(claimed));
  const holders = JSON.parse((await lanes(['claims', '--json'], { env, cwd: repo })).stdout) as {
    claim: { kind: string; name: string; sessionId: string };
  }[];
  assert.deepEqual(
    holders.map((h) => [h.claim.kind, h.claim.name, h.claim.sessionId]),
    [['ticket', 'AFTER-CLEAR', 'claude-code:mcp-c2']],
  );
});
