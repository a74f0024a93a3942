import { existsSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gitRepo, lanes, lanesEnv, tmp } from '../helpers/env.js';

// Existing configs as people keep them: other tools' hooks, unknown keys, their own indentation,
// a comment where the agent allows one, CRLF line endings.
const EXISTING: Record<string, [string, string]> = {
  'claude-code': [
    '.claude/settings.json',
    '{\n    "permissions": {"allow": ["Bash(npm test)"]},\n    "hooks": {\n        "PreToolUse": [\n            {"matcher": "Bash", "hooks": [{"type": "command", "command": "other-tool check"}]}\n        ],\n        "Notification": []\n    },\n    "x-unknown": {"nested": [1, 2, 3]}\n}\n',
  ],
  codex: [
    '.codex/hooks.json',
    '{\r\n  "hooks": {\r\n    "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]\r\n  }\r\n}',
  ],
  gemini: ['.gemini/settings.json', '{\n\t// the user\'s own comment\n\t"theme": "Dracula",\n\t"hooks": {}\n}\n'],
  cursor: [
    '.cursor/hooks.json',
    '{"version": 1, "hooks": {"afterFileEdit": [{"command": "./format.sh"}]}, "extra": true}',
  ],
};

test('install merges into existing configs, twice changes nothing, uninstall restores every byte', async () => {
  const repo = gitRepo();
  const env = { ...lanesEnv(), HOME: tmp() };
  for (const [agent, [file, text]] of Object.entries(EXISTING)) {
    mkdirSync(join(repo, file, '..'), { recursive: true });
    writeFileSync(join(repo, file), text);
    void agent;
  }
  const opts = { env, cwd: repo };
  const dry = await lanes(['hooks', 'install', 'all', '--dry-run'], opts);
  assert.equal(dry.code, 0, dry.stderr);
  assert.match(dry.stdout, /\+.*lanes hook claude-code pre-tool-use/);
  assert.match(dry.stdout, /dry run: nothing was written/);
  for (const [file, text] of Object.values(EXISTING))
    assert.equal(readFileSync(join(repo, file), 'utf8'), text, `dry run wrote ${file}`);

  const first = await lanes(['hooks', 'install', 'all'], opts);
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /trust them: open `\/hooks` in Codex/);
  const installed = Object.fromEntries(
    Object.values(EXISTING).map(([file]) => [file, readFileSync(join(repo, file), 'utf8')]),
  );
  const claude = JSON.parse(installed['.claude/settings.json'] ?? '') as {
    hooks: Record<string, { hooks: { command: string }[] }[]>;
    'x-unknown': unknown;
  };
  assert.equal(claude.hooks['PreToolUse']?.[0]?.hooks[0]?.command, 'other-tool check', 'other hooks kept, first');
  assert.equal(claude.hooks['PreToolUse']?.[1]?.hooks[0]?.command, 'lanes hook claude-code pre-tool-use');
  assert.deepEqual(claude['x-unknown'], { nested: [1, 2, 3] });
  assert.match(installed['.gemini/settings.json'] ?? '', /the user's own comment/);
  assert.match(installed['.gemini/settings.json'] ?? '', /"timeout": 10000/, 'Gemini timeouts in milliseconds');
  assert.match(installed['.codex/hooks.json'] ?? '', /\r\n/);
  assert.doesNotMatch((installed['.codex/hooks.json'] ?? '').replaceAll('\r\n', ''), /\n/, 'CRLF kept throughout');

  const second = await lanes(['hooks', 'install', 'all'], opts);
  assert.match(second.stdout, /hooks: already there, unchanged/);
  assert.match(second.stdout, /MCP server \(lanes mcp\): already there, unchanged/);
  for (const [file] of Object.values(EXISTING))
    assert.equal(readFileSync(join(repo, file), 'utf8'), installed[file], `second install changed ${file}`);

  const status = JSON.parse((await lanes(['hooks', 'status', '--json'], opts)).stdout) as {
    agent: string;
    file: string;
    missing: string[];
    events: string[];
  }[];
  for (const s of status.filter((x) => x.file.startsWith(repo)))
    assert.deepEqual(s.missing, [], `${s.agent} fully installed`);

  const un = await lanes(['hooks', 'uninstall', 'all'], opts);
  assert.equal(un.code, 0, un.stderr);
  for (const [file, text] of Object.values(EXISTING))
    assert.equal(readFileSync(join(repo, file), 'utf8'), text, `uninstall left ${file} different`);
});

test('a new config file is created and, holding nothing else, deleted again; --user writes under HOME', async () => {
  const repo = gitRepo();
  const home = tmp();
  const opts = { env: { ...lanesEnv(), HOME: home }, cwd: repo };
  assert.equal(
    (await lanes(['hooks', 'install', 'cursor', 'codex', '--user', '--command', 'npx lanes'], opts)).code,
    0,
  );
  const cursor = JSON.parse(readFileSync(join(home, '.cursor', 'hooks.json'), 'utf8')) as {
    version: number;
    hooks: Record<string, { command: string }[]>;
  };
  assert.equal(cursor.version, 1);
  assert.equal(cursor.hooks['preToolUse']?.[0]?.command, 'npx lanes hook cursor pre-tool-use');
  assert.equal(existsSync(join(repo, '.cursor')), false, 'the project was not touched');
  assert.equal((await lanes(['hooks', 'uninstall', 'cursor', 'codex', '--user'], opts)).code, 0);
  assert.equal(existsSync(join(home, '.cursor', 'hooks.json')), false);
  assert.equal(existsSync(join(home, '.codex', 'hooks.json')), false);
});

test('a config that is not valid JSON is reported with its line and never overwritten; nothing else is written either', async () => {
  const repo = gitRepo();
  const opts = { env: { ...lanesEnv(), HOME: tmp() }, cwd: repo };
  mkdirSync(join(repo, '.claude'));
  const broken = '{\n  "hooks": {\n    "PreToolUse": [\n  }\n';
  writeFileSync(join(repo, '.claude', 'settings.json'), broken);
  const r = await lanes(['hooks', 'install', 'codex', 'claude-code'], opts);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /\.claude\/settings\.json:4: not valid JSON .*left it unchanged/);
  assert.equal(readFileSync(join(repo, '.claude', 'settings.json'), 'utf8'), broken);
  assert.equal(existsSync(join(repo, '.codex', 'hooks.json')), false, 'all files are checked before any is written');
  assert.equal((await lanes(['hooks', 'uninstall', 'claude-code'], opts)).code, 2);
  const st = await lanes(['hooks', 'status'], opts);
  assert.equal(st.code, 2);
  assert.match(st.stdout, /invalid/);
  assert.equal((await lanes(['hooks', 'install', 'vim'], opts)).code, 2);
  assert.equal((await lanes(['hooks', 'frobnicate', 'codex'], opts)).code, 2);
  const outside = await lanes(['hooks', 'install', 'codex'], { ...opts, cwd: tmp() });
  assert.equal(outside.code, 2);
  assert.match(outside.stderr, /--user/);
});

test('a config that is a symlink (a dotfiles repository) is edited through the link, which stays a link', async () => {
  const repo = gitRepo();
  const home = tmp();
  const dotfiles = tmp();
  const real = join(dotfiles, 'claude-settings.json');
  writeFileSync(real, '{\n  "model": "opus"\n}\n');
  mkdirSync(join(home, '.claude'));
  symlinkSync(real, join(home, '.claude', 'settings.json'));
  const opts = { env: { ...lanesEnv(), HOME: home }, cwd: repo };
  assert.equal((await lanes(['hooks', 'install', 'claude-code', '--user'], opts)).code, 0);
  assert.ok(lstatSync(join(home, '.claude', 'settings.json')).isSymbolicLink());
  assert.match(readFileSync(real, 'utf8'), /lanes hook claude-code session-start/);
  assert.equal((await lanes(['hooks', 'uninstall', 'claude-code', '--user'], opts)).code, 0);
  assert.equal(readFileSync(real, 'utf8'), '{\n  "model": "opus"\n}\n');
  assert.ok(lstatSync(join(home, '.claude', 'settings.json')).isSymbolicLink());
});
