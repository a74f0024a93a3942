import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gitRepo, lanes, lanesEnv, tmp } from '../helpers/env.js';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'protocol.file.allow=always', ...args], { cwd, encoding: 'utf8', stdio: 'pipe' });
const me = String(process.pid);

function nested(repo: string, name: string, commit: boolean): void {
  mkdirSync(join(repo, name), { recursive: true });
  git(join(repo, name), 'init', '-q');
  writeFileSync(join(repo, name, 'inner.txt'), 'inner\n');
  if (commit) {
    git(join(repo, name), 'add', 'inner.txt');
    git(join(repo, name), '-c', 'user.email=a@b', '-c', 'user.name=n', 'commit', '-qm', 'inner');
  }
}

test('an untracked nested repository without commits never blocks end: the session ends, the repository is named', async () => {
  const repo = gitRepo();
  const env = lanesEnv();
  nested(repo, 'sub', false);
  const id = (await lanes(['start', '--pid', me], { env, cwd: repo })).stdout.trim();
  assert.equal((await lanes(['claim', 'ticket:NEST', '--session', id], { env, cwd: repo })).code, 0);
  const end = await lanes(['end', '--force', id], { env, cwd: repo });
  assert.equal(end.code, 0, end.stderr);
  assert.match(end.stdout, /note: not saved: sub\/ \(a nested git repository/);
  const ls = JSON.parse((await lanes(['ls', '--all', '--json'], { env, cwd: repo })).stdout);
  assert.equal(ls.find((s: { id: string }) => s.id === id).state, 'ended');
  assert.equal(JSON.parse((await lanes(['claims', '--json'], { env, cwd: repo })).stdout).length, 0, 'claims released');
});

test('snapshot saves everything else beside nested repositories (with and without commits) and names them', async () => {
  const repo = gitRepo();
  const env = lanesEnv();
  nested(repo, 'empty-inner', false);
  nested(repo, 'deep/with-commits', true);
  writeFileSync(join(repo, 'work.txt'), 'work\n');
  const id = (await lanes(['start', '--pid', me], { env, cwd: repo })).stdout.trim();
  const r = await lanes(['snapshot', '--session', id, '--json'], { env, cwd: repo });
  assert.equal(r.code, 0, r.stderr);
  const snap = JSON.parse(r.stdout);
  assert.deepEqual(snap.skipped.map((s: { path: string }) => s.path).sort(), ['deep/with-commits/', 'empty-inner/']);
  const files = git(repo, 'ls-tree', '-r', '--name-only', snap.snapshot.ref).split('\n').filter(Boolean);
  assert.deepEqual(files.sort(), ['README.md', 'work.txt'], 'no gitlink stands in for a nested repository');
  const text = await lanes(['snapshot', '--session', id], { env, cwd: repo });
  assert.match(text.stdout, /nothing changed since .*; not saved: deep\/with-commits\/ .*, empty-inner\/ /);
});

test('changes inside a submodule are named as not saved; its recorded commit is kept', async () => {
  const upstream = gitRepo();
  const repo = gitRepo();
  const env = lanesEnv();
  git(repo, 'submodule', '-q', 'add', upstream, 'lib');
  git(repo, 'commit', '-qm', 'add lib');
  writeFileSync(join(repo, 'lib', 'inside.txt'), 'changed in the submodule\n');
  writeFileSync(join(repo, 'top.txt'), 'top\n');
  const id = (await lanes(['start', '--pid', me], { env, cwd: repo })).stdout.trim();
  const snap = JSON.parse((await lanes(['snapshot', '--session', id, '--json'], { env, cwd: repo })).stdout);
  assert.deepEqual(snap.skipped, [{ path: 'lib', why: 'submodule changes' }]);
  assert.equal(git(repo, 'show', `${snap.snapshot.ref}:top.txt`), 'top\n');
});

test('a clean worktree makes no snapshot ref; end --remove-worktree never deletes a nested repository', async () => {
  const repo = gitRepo();
  const env = lanesEnv();
  const s = JSON.parse((await lanes(['start', '--worktree', '--pid', me, '--json'], { env, cwd: repo })).stdout);
  const clean = await lanes(['snapshot', '--session', s.id], { env, cwd: repo });
  assert.match(clean.stdout, /nothing to save: the worktree has no uncommitted changes/);
  assert.equal(git(repo, 'for-each-ref', 'refs/lanes/snapshots/'), '', 'no ref for a clean worktree');
  nested(s.worktree, 'tool-cache', true);
  const end = await lanes(['end', s.id, '--remove-worktree'], { env, cwd: repo });
  assert.equal(end.code, 1);
  assert.match(end.stderr, /not removing .*: it holds what no snapshot can save \(not saved: tool-cache\//);
  assert.ok(existsSync(join(s.worktree, 'tool-cache', 'inner.txt')), 'the nested repository is still there');
});

test('a snapshot that fails leaves the session open with its claims and says how to end anyway', async () => {
  const repo = gitRepo();
  const env = lanesEnv();
  const id = (await lanes(['start', '--pid', me], { env, cwd: repo })).stdout.trim();
  assert.equal((await lanes(['claim', 'ticket:NEST', '--session', id], { env, cwd: repo })).code, 0);
  writeFileSync(join(repo, 'work.txt'), 'work\n');
  // A git whose commit-tree fails: the snapshot cannot be written.
  const bin = tmp();
  const real = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  writeFileSync(
    join(bin, 'git'),
    `#!/bin/sh\nfor a in "$@"; do [ "$a" = commit-tree ] && { echo "fatal: disk quota exceeded" >&2; exit 128; }; done\nexec ${real} "$@"\n`,
  );
  chmodSync(join(bin, 'git'), 0o755);
  const broken = { ...env, PATH: `${bin}:${env['PATH']}` };
  const end = await lanes(['end', '--force', id, '--json'], { env: broken, cwd: repo });
  assert.equal(end.code, 1);
  const err = JSON.parse(end.stderr || end.stdout).error ?? JSON.parse(end.stderr || end.stdout);
  assert.equal(err.code, 'E_SNAPSHOT');
  assert.match(err.message, /is not ended and keeps its claims: .*disk quota exceeded/);
  assert.match(err.hint, new RegExp(`lanes end ${id} --skip-snapshot`));
  assert.equal(JSON.parse((await lanes(['claims', '--json'], { env, cwd: repo })).stdout).length, 1);
  const anyway = await lanes(['end', '--force', id, '--skip-snapshot'], { env: broken, cwd: repo });
  assert.equal(anyway.code, 0, anyway.stderr);
  assert.match(anyway.stdout, /--skip-snapshot: uncommitted work was not saved in a ref/);
  assert.equal(JSON.parse((await lanes(['claims', '--json'], { env, cwd: repo })).stdout).length, 0);
});

test('sweep and doctor --fix handle a dead session whose worktree holds a nested repository', async () => {
  const repo = gitRepo();
  const env = lanesEnv();
  const sleeper = execFileSync('sh', ['-c', 'sleep 600 >/dev/null 2>&1 & echo $!'], { encoding: 'utf8' }).trim();
  const s = JSON.parse((await lanes(['start', '--worktree', '--pid', sleeper, '--json'], { env, cwd: repo })).stdout);
  nested(s.worktree, 'vendor/thing', false);
  writeFileSync(join(s.worktree, 'w.txt'), 'w\n');
  process.kill(Number(sleeper), 'SIGKILL');
  const sweep = await lanes(['sweep', '--json'], { env, cwd: repo });
  assert.equal(sweep.code, 0, sweep.stderr);
  const item = JSON.parse(sweep.stdout).items.find((i: { worktree: string }) => i.worktree === s.worktree);
  assert.deepEqual(item.notSaved, [{ path: 'vendor/thing/', why: 'nested repository' }]);
  const fix = await lanes(['doctor', '--fix', '--json'], { env, cwd: repo });
  const dead = JSON.parse(fix.stdout).findings.find((f: { kind: string }) => f.kind === 'dead-session');
  assert.match(dead.fixed, /^ended, work saved as .*not saved: vendor\/thing\//);
});
