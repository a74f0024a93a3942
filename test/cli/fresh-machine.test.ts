import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { lanes, tmp } from '../helpers/env.js';

// Issue 47, item 4: the first command works on a fresh machine (a new container, CI, a new VM): an
// empty HOME, no git identity anywhere (no global or system config, no GIT_AUTHOR_*, no EMAIL).
// On the previous build lanes demo failed at step 2 with "Author identity unknown" and no fix, and
// lanes commit cut git's advice.

function freshEnv(): Record<string, string> {
  const home = tmp('lanes-fresh-home-');
  return {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: home,
    GIT_CONFIG_NOSYSTEM: '1',
    NO_COLOR: '1',
  };
}

test('lanes demo passes with an empty HOME and no git identity', async () => {
  const env = freshEnv();
  // The premise: git itself cannot commit here.
  const probe = tmp('lanes-fresh-probe-');
  execFileSync('git', ['init', '-q', probe], { env });
  const bare = (() => {
    try {
      execFileSync('git', ['commit', '-q', '--allow-empty', '-m', 'x'], { cwd: probe, env, stdio: 'pipe' });
      return 'committed';
    } catch (e) {
      return String((e as { stderr?: Buffer }).stderr ?? e);
    }
  })();
  assert.match(bare, /Please tell me who you are|Author identity unknown/, 'git has no identity in this environment');

  const r = await lanes(['demo'], { env, cwd: env['HOME']! });
  assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
  assert.match(r.stdout, /all \d+ checks held/);
});

test('lanes commit without a git identity keeps the cause and gives the fix', async () => {
  const env = freshEnv();
  const repo = join(tmp('lanes-fresh-repo-'), 'shop');
  mkdirSync(repo);
  execFileSync('git', ['init', '-q', '-b', 'main', repo], { env });
  writeFileSync(join(repo, 'a.txt'), 'a\n');
  const r = await lanes(['commit', '-m', 'first', '--', 'a.txt'], {
    env: { ...env, LANES_HOME: join(env['HOME']!, '.lanes') },
    cwd: repo,
  });
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /Author identity unknown \(fatal: unable to auto-detect email address/);
  assert.match(r.stderr, /fix: git has no identity to commit with: set one with git config --global user\.name/);
});
