import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gitRepo, lanes, lanesEnv, node } from '../helpers/env.js';

test(
  'guard: a plain git commit of a claimed path is refused, an existing hook is chained and restored, --protect keeps main for lanes land',
  { timeout: 60_000 },
  async () => {
    const repo = gitRepo();
    const env = lanesEnv();
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8', env });
    const tryGit = (...args: string[]) => spawnSync('git', args, { cwd: repo, encoding: 'utf8', env });
    // A custom hooks path with a hook of another tool already in it.
    mkdirSync(join(repo, '.hooks'));
    const theirs = '#!/bin/sh\necho "their hook ran" >> "$(git rev-parse --git-dir)/their-hook.log"\n';
    writeFileSync(join(repo, '.hooks', 'pre-commit'), theirs, { mode: 0o755 });
    git('config', 'core.hooksPath', '.hooks');
    const inst = await lanes(['guard', 'install', '--protect', 'main', '--json'], { env, cwd: repo });
    assert.equal(inst.code, 0, inst.stderr);
    const st = JSON.parse(inst.stdout);
    assert.equal(st.hooksDir, join(repo, '.hooks'));
    assert.ok(st.hooks.every((h: { installed: boolean }) => h.installed));
    assert.equal(st.hooks[0].chained, true);

    // Owned by a process of its own: a session owned by this test process would be the acting
    // session of the git commands below (they run under it), so "a" would commit its own claim.
    const owner = node('sleeper.mjs', [], { env });
    const [, pid] = (await owner.waitFor(/ready (\d+)/)) as RegExpMatchArray;
    const a = (await lanes(['start', '--label', 'a', '--pid', pid!], { env, cwd: repo })).stdout.trim();
    await lanes(['claim', 'path:billing/'], { env: { ...env, LANES_SESSION: a }, cwd: repo });
    git('checkout', '-q', '-b', 'work');
    mkdirSync(join(repo, 'billing'));
    writeFileSync(join(repo, 'billing', 'x.ts'), 'x\n');
    git('add', 'billing/x.ts');
    const refused = tryGit('commit', '-m', 'sweeps a claimed file');
    assert.notEqual(refused.status, 0);
    assert.match(refused.stderr, new RegExp(`path:billing/ is claimed by session ${a}`));
    assert.match(refused.stderr, /lanes commit/);
    assert.match(
      readFileSync(join(repo, '.git', 'their-hook.log'), 'utf8'),
      /their hook ran/,
      'the chained hook ran first',
    );
    git('restore', '--staged', 'billing/x.ts');
    writeFileSync(join(repo, 'free.txt'), 'ok\n');
    git('add', 'free.txt');
    // "a" works in this worktree: an unclaimed path may be its staged change; once it is gone, not.
    assert.match(tryGit('commit', '-q', '-m', 'unclaimed file').stderr, /index is shared with session/);
    owner.proc.kill('SIGKILL');
    await owner.exited;
    assert.equal(tryGit('commit', '-q', '-m', 'unclaimed file').status, 0);

    // Protected main: a plain commit on it is refused by the reference-transaction hook.
    git('checkout', '-q', 'main');
    writeFileSync(join(repo, 'main.txt'), 'm\n');
    git('add', 'main.txt');
    const onMain = tryGit('commit', '-q', '-m', 'direct to main');
    assert.notEqual(onMain.status, 0);
    assert.match(onMain.stderr, /refs\/heads\/main is protected/);

    const un = await lanes(['guard', 'uninstall'], { env, cwd: repo });
    assert.equal(un.code, 0);
    assert.equal(
      readFileSync(join(repo, '.hooks', 'pre-commit'), 'utf8'),
      theirs,
      'the original hook is back, byte for byte',
    );
    assert.equal((await lanes(['guard', 'status'], { env, cwd: repo })).code, 1);
  },
);

test('guard refuses a commit from an index a live session of this host shares, not one of a session on another host at the same path', async () => {
  const repo = gitRepo();
  const env = lanesEnv();
  writeFileSync(join(repo, 'a.txt'), 'a\n');
  execFileSync('git', ['add', 'a.txt'], { cwd: repo });
  // Another machine's session whose worktree happens to have the same path (a team store): live by its lease.
  await lanes(['start', '--label', 'far', '--pid', String(process.pid)], {
    env: { ...env, LANES_HOST_ID: 'other-machine' },
    cwd: repo,
  });
  const alone = await lanes(['guard', 'check-commit'], { env, cwd: repo });
  assert.equal(alone.code, 0, alone.stderr);
  assert.doesNotMatch(alone.stderr, /shared/);
  const owner = node('sleeper.mjs', [], { env });
  const [, pid] = (await owner.waitFor(/ready (\d+)/)) as RegExpMatchArray;
  await lanes(['start', '--label', 'near', '--pid', pid!], { env, cwd: repo });
  const shared = await lanes(['guard', 'check-commit'], { env, cwd: repo });
  assert.equal(shared.code, 3, shared.stderr);
  assert.match(shared.stderr, /index is shared with session s-\S+ \(near\)/);
});
