import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, gitRepo, lanes, lanesEnv, tmp } from '../helpers/env.js';
import { needs } from '../helpers/needs.js';

// Issue 27, item 5: `lanes shell-init` prints a function after which `lanes start --worktree --cd`
// (and `lanes new --cd`) leave the shell in the new worktree; without it, --cd says how.

const has = (shell: string) => spawnSync('sh', ['-c', `command -v ${shell}`]).status === 0;

function world() {
  const env = lanesEnv();
  const bin = tmp('lanes-bin-');
  symlinkSync(CLI, join(bin, 'lanes'));
  env['PATH'] = `${bin}:${env['PATH']}`;
  return { env, repo: gitRepo() };
}

for (const shell of ['bash', 'zsh'])
  test(
    `${shell}: start --worktree --cd leaves the shell in the new worktree; the exit code passes through`,
    { skip: needs(shell, has(shell) ? null : `${shell} is not installed (apt-get install ${shell})`) },
    () => {
      const { env, repo } = world();
      const script = `eval "$(lanes shell-init ${shell})"; lanes start --worktree --cd --label cd-me >/dev/null; echo "pwd=$PWD"; lanes ls --bogus 2>/dev/null; echo "rc=$?"; lanes ls >/dev/null; echo "pwd2=$PWD"`;
      const out = execFileSync(shell, ['-c', script], { cwd: repo, env, encoding: 'utf8' });
      assert.match(out, new RegExp(`pwd=${repo.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.lanes/cd-me\\n`));
      assert.match(out, /rc=2\n/, 'a usage error still exits 2 through the function');
      assert.match(out, /pwd2=.*\.lanes\/cd-me\n/, 'a command without --cd does not move the shell');
    },
  );

test(
  'fish: start --worktree --cd leaves the shell in the new worktree',
  { skip: needs('fish', has('fish') ? null : 'fish is not installed (apt-get install fish)') },
  () => {
    const { env, repo } = world();
    const script = `lanes shell-init fish | source; lanes start --worktree --cd --label fish-cd >/dev/null; echo "pwd=$PWD"; lanes ls --bogus 2>/dev/null; echo "rc=$status"`;
    const out = execFileSync('fish', ['--no-config', '-c', script], { cwd: repo, env, encoding: 'utf8' });
    assert.match(out, /pwd=.*\.lanes\/fish-cd\n/);
    assert.match(out, /rc=2\n/);
  },
);

test('--cd without the function says how to add it; shell-init refuses an unknown shell', async () => {
  const { env, repo } = world();
  const r = await lanes(['start', '--worktree', '--cd', '--label', 'no-fn'], { env, cwd: repo });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /--cd needs lanes' shell function: add {2}eval "\$\(lanes shell-init bash\)"/);
  // A LANES_CD_FILE that is not the function's empty file (a link, a full file) is never written.
  const target = join(tmp(), 'precious');
  writeFileSync(target, 'keep me');
  const link = join(tmp(), 'link');
  symlinkSync(target, link);
  await lanes(['start', '--worktree', '--cd', '--label', 'linked'], {
    env: { ...env, LANES_CD_FILE: link },
    cwd: repo,
  });
  assert.equal(execFileSync('cat', [target], { encoding: 'utf8' }), 'keep me');
  const bad = await lanes(['shell-init', 'powershell'], { env, cwd: repo });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /unknown shell "powershell" \(expected bash, zsh or fish\)/);
  const misuse = await lanes(['start', '--cd'], { env, cwd: repo });
  assert.equal(misuse.code, 2);
  assert.match(misuse.stderr, /--cd goes with --worktree and no CMD/);
});
