import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CLI, gitRepo, lanes, lanesEnv, node, tmp } from '../helpers/env.js';

// Project hooks go where lanes' worktrees go (issue 23, item 4): `lanes hooks install` writes the
// project's agent configs where it runs (often untracked); a worktree `lanes start --worktree`
// made had none of them, and its agents ran unchecked. Before this, `hooks status` in the new
// worktree said "no file".

const COMMITTED = '{\n    "permissions": {"allow": ["Bash(npm test)"]},\n    "x-unknown": {"nested": [1, 2, 3]}\n}\n';

test('a worktree lanes makes carries the project hooks of the worktree it was made from; a user file keeps every byte', async () => {
  const repo = gitRepo();
  const env = { ...lanesEnv(), HOME: tmp() };
  const opts = { env, cwd: repo };
  // The user's own Claude Code settings are committed; Codex's and OpenCode's configs will be untracked.
  mkdirSync(join(repo, '.claude'));
  writeFileSync(join(repo, '.claude', 'settings.json'), COMMITTED);
  execFileSync('git', ['add', '.claude/settings.json'], { cwd: repo });
  execFileSync('git', ['commit', '-qm', 'settings'], { cwd: repo });
  const prefix = `${process.execPath} ${CLI}`;
  const inst = await lanes(['hooks', 'install', 'claude-code', 'codex', 'opencode', '--command', prefix], opts);
  assert.equal(inst.code, 0, inst.stderr);
  // Install says which files git does not track, and what that means for other tools' worktrees.
  const note = /note: git does not track (.*): worktrees lanes makes/.exec(inst.stdout);
  assert.ok(note, inst.stdout);
  assert.match(note[1]!, /\.codex\/hooks\.json/);
  assert.match(note[1]!, /\.opencode\/plugins\/lanes\.js/);
  assert.doesNotMatch(note[1]!, /\.claude\/settings\.json/, 'the committed file is tracked');
  assert.match(inst.stdout, /Commit them, or install with --user/);

  const owner = node('sleeper.mjs', [], { env });
  const [, pid] = (await owner.waitFor(/ready (\d+)/)) as RegExpMatchArray;
  const r = await lanes(['start', '--worktree', '--label', 'wt', '--pid', pid!, '--json'], opts);
  assert.equal(r.code, 0, r.stderr);
  const s = JSON.parse(r.stdout) as { worktree: string; hooks: { carried: { agent: string }[]; failed: unknown[] } };
  assert.deepEqual(
    s.hooks.carried.map((c) => c.agent),
    ['claude-code', 'codex', 'opencode'],
  );
  assert.deepEqual(s.hooks.failed, []);
  const status = JSON.parse((await lanes(['hooks', 'status', '--json'], { env, cwd: s.worktree })).stdout) as {
    agent: string;
    file: string;
    exists: boolean;
    missing: string[];
  }[];
  for (const agent of ['claude-code', 'codex', 'opencode']) {
    const row = status.find((x) => x.agent === agent && x.file.startsWith(s.worktree));
    assert.ok(row?.exists, `${agent}: no config in the new worktree`);
    assert.deepEqual(row.missing, [], `${agent}: lanes' hooks are all there`);
  }
  // The same command prefix as in the worktree it came from.
  assert.match(readFileSync(join(s.worktree, '.codex', 'hooks.json'), 'utf8'), new RegExp(`${CLI} hook codex`));
  assert.ok(existsSync(join(s.worktree, '.opencode', 'plugins', 'lanes.js')));
  // The user's committed file: lanes' entries added, and removed again, leave it byte for byte.
  const un = await lanes(['hooks', 'uninstall', 'claude-code'], { env, cwd: s.worktree });
  assert.equal(un.code, 0, un.stderr);
  assert.equal(readFileSync(join(s.worktree, '.claude', 'settings.json'), 'utf8'), COMMITTED);
  // Without a worktree of its own, nothing is written anywhere.
  const plain = await lanes(['start', '--label', 'here', '--pid', pid!, '--json'], opts);
  assert.equal(JSON.parse(plain.stdout).hooks, undefined);
  owner.proc.stdin.end();
});
