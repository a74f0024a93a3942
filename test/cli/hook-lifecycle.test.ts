import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CLI, gitRepo, lanes, lanesEnv, node, tmp } from '../helpers/env.js';
import { answer, fixture, hook } from '../helpers/hooks.js';

const S = 'cccccccc-3333-4333-8333-cccccccccccc';

async function sessionJson(id: string, opts: { env: Record<string, string>; cwd: string }) {
  const r = await lanes(['ls', '--all', '--json'], opts);
  return (
    JSON.parse(r.stdout) as {
      id: string;
      state: string;
      owner: { pid: number };
      endReason: string | null;
      worktree: string | null;
    }[]
  ).find((s) => s.id === id);
}

test('session start registers AGENT:id owned by the agent process; resume re-attaches the same record; end snapshots, releases and ends; a later resume reopens it', async () => {
  const repo = gitRepo();
  const env = lanesEnv();
  const opts = { env, cwd: repo };
  const agent1 = node('sleeper.mjs', []);
  await agent1.waitFor(/ready/);
  const envFile = join(tmp(), 'env');
  const start = await hook('claude-code', 'session-start', fixture('claude-code', 'session-start', repo, S), {
    ...opts,
    env: { ...env, CLAUDE_PID: String(agent1.proc.pid), CLAUDE_ENV_FILE: envFile },
  });
  assert.equal(start.code, 0, start.stderr);
  let s = await sessionJson(`claude-code:${S}`, opts);
  assert.equal(s?.state, 'live');
  assert.equal(s?.owner.pid, agent1.proc.pid, 'CLAUDE_PID names the owner');

  // The agent process restarts (claude --resume): same record, new owner; the env file line is not doubled.
  const agent2 = node('sleeper.mjs', []);
  await agent2.waitFor(/ready/);
  await hook(
    'claude-code',
    'session-start',
    fixture('claude-code', 'session-start', repo, S, (p) => {
      p['source'] = 'resume';
    }),
    { ...opts, env: { ...env, CLAUDE_PID: String(agent2.proc.pid), CLAUDE_ENV_FILE: envFile } },
  );
  s = await sessionJson(`claude-code:${S}`, opts);
  assert.equal(s?.owner.pid, agent2.proc.pid);
  assert.equal(readFileSync(envFile, 'utf8').split('\n').filter(Boolean).length, 1);
  assert.equal((JSON.parse((await lanes(['ls', '--all', '--json'], opts)).stdout) as unknown[]).length, 1);

  // Work in progress, a claim, then the agent exits.
  const asS = { ...opts, env: { ...env, LANES_SESSION: `claude-code:${S}` } };
  assert.equal((await lanes(['claim', 'path:README.md'], asS)).code, 0);
  writeFileSync(join(repo, 'README.md'), 'unsaved work\n');
  const t0 = performance.now();
  const end = await hook('claude-code', 'session-end', fixture('claude-code', 'session-end', repo, S), opts);
  const ms = performance.now() - t0;
  assert.equal(end.code, 0, end.stderr);
  assert.match(end.stderr, /ended, 1 claim\(s\) released, work saved in refs\/lanes\/snapshots\//);
  // A hang bound only; its speed (Codex allows a hook 3 s) is bench/hook.mjs's session-end row.
  assert.ok(ms < 30_000, `session end took ${ms} ms`);
  s = await sessionJson(`claude-code:${S}`, opts);
  assert.equal(s?.state, 'ended');
  assert.match(s?.endReason ?? '', /claude-code session ended \(prompt_input_exit\)/);
  const snaps = await lanes(['snapshots', '--session', `claude-code:${S}`, '--json'], opts);
  assert.equal((JSON.parse(snaps.stdout) as unknown[]).length, 1);
  assert.equal(readFileSync(join(repo, 'README.md'), 'utf8'), 'unsaved work\n', 'files untouched');
  assert.equal((JSON.parse((await lanes(['claims', '--all', '--json'], opts)).stdout) as unknown[]).length, 0);

  // A second end is a no-op; a resume after the end reopens the same record.
  assert.equal(
    (await hook('claude-code', 'session-end', fixture('claude-code', 'session-end', repo, S), opts)).stderr,
    '',
  );
  await hook(
    'claude-code',
    'session-start',
    fixture('claude-code', 'session-start', repo, S, (p) => {
      p['source'] = 'resume';
    }),
    { ...opts, env: { ...env, CLAUDE_PID: String(agent2.proc.pid) } },
  );
  assert.equal((await sessionJson(`claude-code:${S}`, opts))?.state, 'live');
});

test('without CLAUDE_PID the owner is the nearest ancestor that is not a shell or lanes', async () => {
  const repo = gitRepo();
  const env = lanesEnv();
  const payload = JSON.stringify(fixture('codex', 'session-start', repo, S));
  // The "agent" is this test's node process; the hook runs through `sh -c` as agents do.
  const r = execFileSync(
    'sh',
    ['-c', `printf '%s' '${payload.replace(/'/g, `'\\''`)}' | '${process.execPath}' '${CLI}' hook codex session-start`],
    { cwd: repo, env, encoding: 'utf8' },
  );
  assert.match(r, /SessionStart/);
  const s = await sessionJson(`codex:${S}`, { env, cwd: repo });
  assert.equal(s?.owner.pid, process.pid, 'the shell was skipped');
});

test('stop: heartbeat, and with [snapshot] on_stop = true a snapshot per turn', async () => {
  const repo = gitRepo();
  const env = lanesEnv();
  const opts = { env, cwd: repo };
  await hook('gemini', 'session-start', fixture('gemini', 'session-start', repo, S), opts);
  writeFileSync(join(repo, 'wip.txt'), 'turn 1\n');
  const plain = await hook(
    'gemini',
    'after-agent',
    fixture('gemini', 'session-start', repo, S, (p) => {
      p['hook_event_name'] = 'AfterAgent';
    }),
    opts,
  );
  assert.deepEqual([plain.code, plain.stdout.trim()], [0, '{}']);
  assert.equal(
    (JSON.parse((await lanes(['snapshots', '--session', `gemini:${S}`, '--json'], opts)).stdout) as unknown[]).length,
    0,
  );
  writeFileSync(join(repo, 'lanes.toml'), '[snapshot]\non_stop = true\n');
  const snap = await hook('gemini', 'after-agent', fixture('gemini', 'session-start', repo, S), opts);
  assert.equal(snap.code, 0, snap.stderr);
  assert.match(snap.stderr, /snapshot refs\/lanes\/snapshots\/gemini%3A/);
  assert.equal(
    (JSON.parse((await lanes(['snapshots', '--session', `gemini:${S}`, '--json'], opts)).stdout) as unknown[]).length,
    1,
  );
});

test('Cursor running Claude Code hooks: lanes acts as the Cursor session, or not at all when its Cursor hooks are installed', async () => {
  const repo = gitRepo();
  const env = lanesEnv();
  const opts = { env, cwd: repo };
  const cursorPayload = fixture('cursor', 'session-start', repo, S);
  const viaClaude = await hook('claude-code', 'session-start', cursorPayload, opts);
  assert.equal(viaClaude.code, 0, viaClaude.stderr);
  assert.equal((await sessionJson(`cursor:${S}`, opts))?.state, 'live', 'registered once, as the Cursor session');
  assert.equal(await sessionJson(`claude-code:${S}`, opts), undefined);

  const repo2 = gitRepo();
  mkdirSync(join(repo2, '.cursor'));
  writeFileSync(
    join(repo2, '.cursor', 'hooks.json'),
    JSON.stringify({ version: 1, hooks: { sessionStart: [{ command: 'lanes hook cursor session-start' }] } }),
  );
  const T = 'dddddddd-4444-4444-8444-dddddddddddd';
  const skipped = await hook('claude-code', 'session-start', fixture('cursor', 'session-start', repo2, T), {
    env,
    cwd: repo2,
  });
  assert.deepEqual([skipped.code, skipped.stdout, skipped.stderr], [0, '', '']);
  assert.equal(await sessionJson(`cursor:${T}`, { env, cwd: repo2 }), undefined, 'left to the Cursor hook');
  const own = await hook('cursor', 'session-start', fixture('cursor', 'session-start', repo2, T), { env, cwd: repo2 });
  assert.match(String(answer(own)['additional_context']), new RegExp(`you are session cursor:${T}`));
  // sessionStart's env: the session's later shell commands carry LANES_SESSION.
  assert.deepEqual(answer(own)['env'], { LANES_SESSION: `cursor:${T}` });
});

test('malformed or unexpected input never blocks the agent: exit 0, nothing or {} on stdout, one line on stderr', async () => {
  const repo = gitRepo();
  const env = lanesEnv();
  const opts = { env, cwd: repo };
  const cases: [string, string, string][] = [
    ['claude-code', 'pre-tool-use', 'garbage'],
    ['claude-code', 'pre-tool-use', ''],
    ['codex', 'pre-tool-use', '[1,2]'],
    ['codex', 'pre-tool-use', '{"tool_name":"apply_patch"}'],
    ['gemini', 'before-tool', '{"session_id":"x","tool_name":"write_file","tool_input":{}}'],
    [
      'cursor',
      'pre-tool-use',
      '{"conversation_id":"💥 not an id","tool_name":"Write","tool_input":{"file_path":"/x"}}',
    ],
    ['claude-code', 'no-such-event', '{}'],
    ['no-such-agent', 'pre-tool-use', '{}'],
    [
      'claude-code',
      'pre-tool-use',
      '{"session_id":"s","cwd":"/","tool_name":"Edit","tool_input":{"file_path":"' + 'x'.repeat(100000) + '"}}',
    ],
  ];
  for (const [agent, event, input] of cases) {
    const r = await hook(agent, event, input, { ...opts, failOpen: true });
    assert.equal(r.code, 0, `${agent} ${event} ${input.slice(0, 40)}: ${r.stderr}`);
    assert.ok(r.stdout === '' || r.stdout.trim() === '{}', `${agent} ${event}: stdout ${r.stdout}`);
    assert.ok(r.stdout === '' || agent === 'gemini');
    if (input !== '' && !input.includes('xxxx')) assert.match(r.stderr, /failed open/, `${agent} ${event} ${input}`);
    assert.equal(r.stderr.trim().split('\n').length <= 1, true, r.stderr);
  }
  // An unusable store fails open too (a directory where the store file should be).
  const bad = join(tmp(), 'store-is-a-dir');
  mkdirSync(bad);
  const r = await hook('claude-code', 'pre-tool-use', fixture('claude-code', 'pre-tool-use-edit', repo, S), {
    env: { ...env, LANES_STORE: bad },
    cwd: repo,
    failOpen: true,
  });
  // Allowed, but loudly: the model reads that lanes could not check it (PreToolUse context), the
  // person the agent's message; the call is written down and journaled once the store answers.
  assert.equal(r.code, 0);
  const said = JSON.parse(r.stdout) as {
    hookSpecificOutput: { hookEventName: string; additionalContext: string; permissionDecision?: string };
    systemMessage: string;
  };
  assert.equal(said.hookSpecificOutput.hookEventName, 'PreToolUse');
  assert.equal(said.hookSpecificOutput.permissionDecision, undefined, 'never "allow": the agent’s own prompts stay');
  assert.match(said.hookSpecificOutput.additionalContext, /lanes could not check this call/);
  assert.match(said.systemMessage, /lanes could not check this call/);
  assert.match(r.stderr, /failed open \(the call was allowed, and the agent told\)/);
  const back = await hook('claude-code', 'pre-tool-use', fixture('claude-code', 'pre-tool-use-edit', repo, S), opts);
  assert.equal(back.code, 0, back.stderr);
  const log = await lanes(['log', '--kind', 'hook', '--json'], opts);
  const unchecked = log.stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { kind: string; session: string; details: { error: string } })
    .filter((e) => e.kind === 'hook.unchecked');
  assert.equal(unchecked.length, 1, log.stdout);
  assert.equal(unchecked[0]!.session, `claude-code:${S}`);
  assert.match(unchecked[0]!.details.error, /store-is-a-dir/);
  // Journaled once: the next call finds nothing left to write.
  await hook('claude-code', 'pre-tool-use', fixture('claude-code', 'pre-tool-use-edit', repo, S), opts);
  const again = (await lanes(['log', '--kind', 'hook', '--json'], opts)).stdout.match(/hook\.unchecked/g) ?? [];
  assert.equal(again.length, 1);
});

test('concurrent after-edit hooks of one session lose no edited path (the session state gate serializes them)', async () => {
  const repo = gitRepo();
  const env = lanesEnv();
  const opts = { env, cwd: repo };
  await hook('claude-code', 'session-start', fixture('claude-code', 'session-start', repo, S), opts);
  const files = Array.from({ length: 12 }, (_, i) => join(repo, `f${i}.ts`));
  const results = await Promise.all(
    files.map((f) =>
      hook(
        'claude-code',
        'post-tool-use',
        fixture('claude-code', 'post-tool-use-edit', repo, S, (p) => {
          (p['tool_input'] as Record<string, string>)['file_path'] = f;
        }),
        opts,
      ),
    ),
  );
  for (const r of results) assert.equal(r.code, 0, r.stderr);
  const state = JSON.parse(
    (await lanes(['state', 'get', 'lanes:touched', '--session', `claude-code:${S}`], opts)).stdout,
  ) as string[];
  assert.deepEqual([...state].sort(), files.map((_, i) => `f${i}.ts`).sort());
});
