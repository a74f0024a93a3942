import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { snapshot, world } from './setup-world.js';

// `lanes setup --undo`: every byte back (files that did not exist gone again, with the directories
// setup made), the user's own hooks merged into rather than replaced, and a file the user changed
// after setup never overwritten.

// A project config of the user's own: another tool's hook, an unknown key, their indentation, CRLF.
const CLAUDE_PROJECT =
  '{\r\n    "permissions": {"allow": ["Bash(npm test)"]},\r\n    "hooks": {\r\n        "PreToolUse": [\r\n            {"matcher": "Bash", "hooks": [{"type": "command", "command": "other-tool check"}]}\r\n        ]\r\n    }\r\n}\r\n';
const CLAUDE_USER =
  '{\n  "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-me"}]}]},\n  "theme": "dark"\n}\n';
// The user's own pre-commit hook, not UTF-8 throughout, with a mode of its own.
const PRE_COMMIT = Buffer.concat([
  Buffer.from('#!/bin/sh\n# caf'),
  Buffer.from([0xe9, 0xff]),
  Buffer.from('\nexit 0\n'),
]);

test("setup merges into the user's own hook settings; --undo gives back every byte, files and directories it made gone", async () => {
  const w = world({ programs: ['claude', 'gemini'], dirs: ['.claude', '.codex'] });
  mkdirSync(join(w.repo, '.claude'));
  writeFileSync(join(w.repo, '.claude', 'settings.json'), CLAUDE_PROJECT);
  w.git('add', '.claude/settings.json');
  w.git('commit', '-qm', 'our claude settings');
  writeFileSync(join(w.home, '.claude', 'settings.json'), CLAUDE_USER);
  const hook = join(w.repo, '.git', 'hooks', 'pre-commit');
  writeFileSync(hook, PRE_COMMIT);
  chmodSync(hook, 0o750);
  const repoBefore = snapshot(w.repo);
  const homeBefore = snapshot(w.home);

  const r = await w.setup(['--yes']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /~ \.claude\/settings\.json +claude-code hooks \(added to the file/);
  assert.match(r.stdout, /~ \.git\/hooks\/pre-commit +the guard.*kept beside it/);
  const merged = readFileSync(join(w.repo, '.claude', 'settings.json'), 'utf8');
  const claude = JSON.parse(merged) as {
    permissions: unknown;
    hooks: Record<string, { hooks: { command: string }[] }[]>;
  };
  assert.deepEqual(claude.permissions, { allow: ['Bash(npm test)'] }, 'their keys stay');
  assert.equal(claude.hooks['PreToolUse']?.[0]?.hooks[0]?.command, 'other-tool check', 'their hook stays, first');
  assert.equal(claude.hooks['PreToolUse']?.[1]?.hooks[0]?.command, 'lanes hook claude-code pre-tool-use');
  assert.ok(merged.startsWith('{\r\n    "permissions"'), 'their formatting stays');
  assert.deepEqual(readFileSync(`${hook}.lanes-chained`), PRE_COMMIT, 'their git hook kept, run first');

  // A second run for the user's config: merged into their ~/.claude/settings.json.
  const user = await w.setup(['--user', '--agent', 'claude-code', '--yes']);
  assert.equal(user.code, 0, user.stderr);
  const home = JSON.parse(readFileSync(join(w.home, '.claude', 'settings.json'), 'utf8')) as {
    theme: string;
    hooks: Record<string, { hooks: { command: string }[] }[]>;
  };
  assert.equal(home.theme, 'dark');
  assert.equal(home.hooks['Stop']?.[0]?.hooks[0]?.command, 'notify-me');
  assert.equal(home.hooks['Stop']?.[1]?.hooks[0]?.command, 'lanes hook claude-code stop');

  const dry = await w.setup(['--undo', '--dry-run']);
  assert.equal(dry.code, 0, dry.stderr);
  assert.match(dry.stdout, /\.claude\/settings\.json +put back as it was before setup/);
  assert.match(dry.stdout, /\.mcp\.json +removed \(setup made it\)/);
  assert.match(dry.stdout, /dry run: nothing was changed/);
  assert.equal((await w.setup(['--undo'])).code, 2, 'no terminal, no --yes: nothing undone');

  const undo = await w.setup(['--undo', '--yes']);
  assert.equal(undo.code, 0, undo.stderr);
  assert.deepEqual(snapshot(w.repo), repoBefore, 'the repository byte for byte (made files and directories gone)');
  assert.deepEqual(snapshot(w.home), homeBefore, 'HOME byte for byte');
  assert.equal(w.git('status', '--porcelain'), '');
  // The hooks installer's memory of what it created goes too: a later `lanes hooks uninstall`
  // would otherwise take the user's own .claude/settings.json for a file lanes made.
  const records = join(w.env['LANES_HOME']!, 'hooks-installed.json');
  const kept = existsSync(records) ? Object.keys(JSON.parse(readFileSync(records, 'utf8')) as object) : [];
  assert.deepEqual(kept, [], 'no install record left');

  const twice = await w.setup(['--undo', '--yes']);
  assert.equal(twice.code, 1);
  assert.match(twice.stderr, /wrote nothing in this repository that is not undone/);
});

test('a file changed after setup is not clobbered: --undo names it and undoes nothing (exit 3); --keep-edited takes only lanes out of it', async () => {
  const w = world({ programs: ['claude', 'codex'] });
  const repoBefore = snapshot(w.repo);
  assert.equal((await w.setup(['--yes'])).code, 0);
  const settings = join(w.repo, '.claude', 'settings.json');
  writeFileSync(settings, readFileSync(settings, 'utf8').replace('{', '{\n  "model": "opus",'));
  const toml = join(w.repo, 'lanes.toml');
  writeFileSync(toml, `${readFileSync(toml, 'utf8')}[ports]\nnames = ["web"]\n`);
  const edited = snapshot(w.repo);

  const refused = await w.setup(['--undo', '--yes']);
  assert.equal(refused.code, 3, refused.stderr);
  assert.match(refused.stderr, /\.claude\/settings\.json, .*lanes\.toml changed since lanes setup wrote them/);
  assert.match(refused.stderr, /--keep-edited/);
  assert.deepEqual(snapshot(w.repo), edited, 'nothing undone');

  const kept = await w.setup(['--undo', '--keep-edited', '--yes']);
  assert.equal(kept.code, 0, kept.stderr);
  assert.deepEqual(JSON.parse(readFileSync(settings, 'utf8')), { model: 'opus' }, "their edit stays, lanes' hooks go");
  assert.match(readFileSync(toml, 'utf8'), /^names = \["web"\]$/m, 'their lanes.toml stays');
  assert.match(kept.stdout, /Left as you changed it: lanes\.toml/);
  for (const f of ['.mcp.json', '.codex', '.git/hooks/pre-commit'])
    assert.ok(!existsSync(join(w.repo, f)), `${f} gone`);
  const after = snapshot(w.repo);
  for (const f of ['.claude', '.claude/settings.json', 'lanes.toml']) after.delete(f);
  assert.deepEqual(after, repoBefore, 'everything else byte for byte');
});
