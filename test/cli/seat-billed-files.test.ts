import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gitRepo, lanes, lanesEnv, tmp } from '../helpers/env.js';

// A login's own files can bring back the key lanes strips from a seated session's environment:
// Claude Code's settings ("env", "apiKeyHelper", project and user level) and an API-key login in
// its .claude.json, Codex's auth.json made with an API key or a model provider with env_key,
// Gemini CLI's .env files and API-key auth type, OpenCode's provider keys. Such a seat is neither
// added (unless --pay-per-use) nor leased, named or by auto, through the built CLI.

function world() {
  const home = tmp('lanes-billed-home-');
  const repo = gitRepo();
  const env = { ...lanesEnv(), HOME: home, LANES_CONFIG: join(home, 'lanes.toml') };
  const run = (args: string[], cwd = repo) => lanes(args, { env, cwd });
  const login = (name: string) => {
    const d = join(home, name);
    mkdirSync(d, { recursive: true });
    return d;
  };
  const start = (seat: string, agent = 'claude-code') =>
    run(['start', '--agent', agent, '--seat', seat, '--', 'sh', '-c', 'echo ran on "$CLAUDE_CONFIG_DIR"']);
  return { home, repo, env, run, login, start };
}

const json = (file: string, value: unknown) => writeFileSync(file, JSON.stringify(value, null, 2));

test('seat add refuses a login whose own files bill per call, naming the file and what in it; --json says the same', async () => {
  const w = world();
  const claude = w.login('claude-key');
  json(join(claude, 'settings.json'), { env: { ANTHROPIC_API_KEY: 'sk-ant-in-settings' } });
  const codex = w.login('codex-key');
  json(join(codex, 'auth.json'), { OPENAI_API_KEY: 'sk-in-auth', tokens: null });
  const gemini = w.login('gemini-key');
  mkdirSync(join(gemini, '.gemini'));
  json(join(gemini, '.gemini', 'settings.json'), { security: { auth: { selectedType: 'gemini-api-key' } } });
  const opencode = w.login('opencode-data');
  mkdirSync(join(opencode, 'opencode'));
  json(join(opencode, 'opencode', 'auth.json'), { anthropic: { type: 'api', key: 'sk-ant-oc' } });
  const cases: [string[], RegExp][] = [
    [['claude-code', 'CLAUDE_CONFIG_DIR', claude], /settings\.json \(env\.ANTHROPIC_API_KEY\)/],
    [['codex', 'CODEX_HOME', codex], /auth\.json \(an API key login\)/],
    [['gemini', 'GEMINI_CLI_HOME', gemini], /settings\.json \(security\.auth\.selectedType "gemini-api-key"\)/],
    [['opencode', 'XDG_DATA_HOME', opencode], /auth\.json \(an API key for anthropic\)/],
  ];
  for (const [[agent, key, dir], said] of cases) {
    const r = await w.run(['seat', 'add', `s-${agent}`, '--agent', agent as string, '--env', `${key}=${dir}`]);
    assert.equal(r.code, 2, `${agent}: ${r.stdout}${r.stderr}`);
    assert.match(r.stderr, /would bill per call/);
    assert.match(r.stderr, said);
    assert.match(r.stderr, /take the key out of the file named/);
    assert.ok(!r.stderr.includes('sk-'), 'the key itself is never printed');
    const j = await w.run([
      'seat',
      'add',
      `s-${agent}`,
      '--agent',
      agent as string,
      '--env',
      `${key}=${dir}`,
      '--json',
    ]);
    assert.equal(JSON.parse(j.stdout).error.code, 'E_PAY_PER_USE');
  }
  assert.equal(JSON.parse((await w.run(['seat', 'ls', '--json'])).stdout).length, 0, 'nothing was added');
  // A ChatGPT sign-in also stores an exchanged API key, unused in that mode: a subscription seat.
  json(join(codex, 'auth.json'), { auth_mode: 'chatgpt', OPENAI_API_KEY: 'sk-exchanged', tokens: { id_token: 'x' } });
  const sub = await w.run(['seat', 'add', 'codex-sub', '--agent', 'codex', '--env', `CODEX_HOME=${codex}`]);
  assert.equal(sub.code, 0, sub.stderr);
  // The same login without the key is an ordinary seat.
  json(join(claude, 'settings.json'), { env: { MY_SETTING: '1' }, hooks: {} });
  const ok = await w.run(['seat', 'add', 'clean', '--agent', 'claude-code', '--env', `CLAUDE_CONFIG_DIR=${claude}`]);
  assert.equal(ok.code, 0, ok.stderr);
});

test('a key that appears after the seat was added: the named seat is refused, auto passes it over, and a pool with no other seat says why', async () => {
  const w = world();
  const [a, b] = [w.login('claude-a'), w.login('claude-b')];
  for (const [name, dir] of [
    ['a', a],
    ['b', b],
  ] as const)
    assert.equal(
      (await w.run(['seat', 'add', name, '--agent', 'claude-code', '--env', `CLAUDE_CONFIG_DIR=${dir}`])).code,
      0,
    );
  // The login of a is switched to the Console's API key (what /login with an API key writes).
  json(join(a, '.claude.json'), { primaryApiKey: 'sk-ant-console', numStartups: 3 });
  // seat ls says so before anything is started: a warning, and `billed` in --json.
  const ls = await w.run(['seat', 'ls']);
  assert.match(
    ls.stderr,
    /seat a would bill per call and is never leased: .*claude-a\/\.claude\.json \(an API key login/,
  );
  assert.ok(!/seat b /.test(ls.stderr), ls.stderr);
  const listed = JSON.parse((await w.run(['seat', 'ls', '--json'])).stdout) as { name: string; billed: unknown[] }[];
  assert.deepEqual(
    listed.map((s) => [s.name, s.billed.length]),
    [
      ['a', 1],
      ['b', 0],
    ],
  );
  const named = await w.start('a');
  assert.equal(named.code, 2, named.stdout + named.stderr);
  assert.match(named.stderr, /the seat a would bill per call: .*\.claude\.json \(an API key login \(primaryApiKey\)\)/);
  assert.ok(!named.stdout.includes('ran on'), 'the command never ran');
  const auto = await w.start('auto');
  assert.equal(auto.code, 0, auto.stderr);
  assert.equal(auto.stdout.trim(), `ran on ${b}`, 'auto took the seat without a key');
  // A project's settings bring a key helper for every seat used in this repository.
  mkdirSync(join(w.repo, '.claude'));
  json(join(w.repo, '.claude', 'settings.local.json'), { apiKeyHelper: '~/bin/print-key.sh' });
  const none = await w.start('auto');
  assert.equal(none.code, 3, none.stdout + none.stderr);
  assert.match(none.stderr, /no claude-code seat is free/);
  assert.match(none.stderr, /a would bill per call/);
  assert.match(none.stderr, /b would bill per call: .*settings\.local\.json \(apiKeyHelper\)/);
  // Elsewhere (another repository) b is fine again; a, still with its key, is not.
  const other = gitRepo();
  const there = await w.run(
    ['start', '--agent', 'claude-code', '--seat', 'auto', '--', 'sh', '-c', 'echo ran on "$CLAUDE_CONFIG_DIR"'],
    other,
  );
  assert.equal(there.stdout.trim(), `ran on ${b}`, there.stderr);
  // Settings given on the agent's command line (`claude --settings FILE|JSON`) are a layer too.
  for (const [settings, named] of [
    ['{"env":{"ANTHROPIC_API_KEY":"sk-ant-cli"}}', /the command line \(--settings\) \(env\.ANTHROPIC_API_KEY\)/],
    ['key-settings.json', /key-settings\.json \(apiKeyHelper\)/],
  ] as const) {
    json(join(other, 'key-settings.json'), { apiKeyHelper: 'print-key' });
    const cli = ['start', '--agent', 'claude-code', '--seat', 'b', '--', 'sh', '-c', 'echo ran', 'claude'];
    const r = await w.run([...cli, '--settings', settings], other);
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(r.stderr, named);
    assert.ok(!r.stderr.includes('sk-ant-cli'), 'the key itself is never printed');
  }
  // From a linked worktree (where lanes new runs agents) the main checkout's settings.local.json counts.
  execFileSync('git', ['worktree', 'add', '-q', '-b', 'side', join(w.home, 'wt')], { cwd: w.repo });
  const linked = await w.run(
    ['start', '--agent', 'claude-code', '--seat', 'b', '--', 'sh', '-c', 'echo ran'],
    join(w.home, 'wt'),
  );
  assert.equal(linked.code, 2, linked.stdout + linked.stderr);
  assert.match(linked.stderr, /settings\.local\.json \(apiKeyHelper\)/);
  rmSync(join(a, '.claude.json'));
  assert.equal((await w.start('a')).code, 2, 'the repository still has its key helper');
});

test('Gemini CLI: an auth type in its settings wins; without one, the first .env from the working directory up, then its home', async () => {
  const w = world();
  const g = w.login('gemini-a');
  assert.equal((await w.run(['seat', 'add', 'g', '--agent', 'gemini', '--env', `GEMINI_CLI_HOME=${g}`])).code, 0);
  const start = () => w.start('g', 'gemini');
  // The user's own ~/.env is not Gemini's home on this seat: GEMINI_CLI_HOME is.
  writeFileSync(join(w.home, '.env'), 'GEMINI_API_KEY=AIza-user-home\n');
  assert.equal((await start()).code, 0);
  writeFileSync(join(g, '.env'), 'GEMINI_API_KEY: "AIza-seat-home"\n');
  const home = await start();
  assert.equal(home.code, 2, home.stderr);
  assert.match(home.stderr, /gemini-a\/\.env \(GEMINI_API_KEY\)/);
  // A project .env without a key is found first: the home's is never read by Gemini CLI then.
  writeFileSync(join(w.repo, '.env'), '# project settings\nDEBUG=1\nGOOGLE_API_KEY= # none\n');
  assert.equal((await start()).code, 0);
  mkdirSync(join(w.repo, '.gemini'));
  writeFileSync(join(w.repo, '.gemini', '.env'), 'export GOOGLE_API_KEY=AIza-project\n');
  const project = await start();
  assert.equal(project.code, 2);
  assert.match(project.stderr, /\.gemini\/\.env \(GOOGLE_API_KEY\)/);
  // Signed in with Google: the settings' auth type wins over any key in a .env.
  mkdirSync(join(g, '.gemini'));
  json(join(g, '.gemini', 'settings.json'), { security: { auth: { selectedType: 'oauth-personal' } } });
  assert.equal((await start()).code, 0);
  json(join(g, '.gemini', 'settings.json'), { security: { auth: { selectedType: 'gateway' } } });
  const gateway = await start();
  assert.equal(gateway.code, 2);
  assert.match(gateway.stderr, /selectedType "gateway"/);
});
