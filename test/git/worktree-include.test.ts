import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { gitRepo, lanes, lanesEnv, tmp } from '../helpers/env.js';

test(
  '.worktreeinclude copies ignored matching files into a new worktree (copies, not links) and leaves tracked ones to git',
  { timeout: 60_000 },
  async () => {
    const repo = gitRepo();
    const env = lanesEnv();
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' });
    writeFileSync(join(repo, '.gitignore'), '.env\nnode_modules/\nbuild/\n');
    writeFileSync(join(repo, '.worktreeinclude'), '.env\nnode_modules/\ntracked.txt\n');
    writeFileSync(join(repo, 'tracked.txt'), 'committed version\n');
    git('add', '.');
    git('commit', '-q', '-m', 'base');
    writeFileSync(join(repo, 'tracked.txt'), 'local edit, not for the worktree\n');
    writeFileSync(join(repo, '.env'), 'SECRET=ü😀\n');
    mkdirSync(join(repo, 'node_modules', 'pkg', 'bin'), { recursive: true });
    writeFileSync(join(repo, 'node_modules', 'pkg', 'index.js'), 'module.exports = 1;\n');
    symlinkSync('../pkg/index.js', join(repo, 'node_modules', 'pkg', 'bin', 'tool'));
    mkdirSync(join(repo, 'build'));
    writeFileSync(join(repo, 'build', 'out.js'), 'ignored but not included\n');
    writeFileSync(join(repo, 'untracked-not-ignored.txt'), 'x\n');
    const r = await lanes(['start', '--worktree', '--ticket', 'INC-1', '--json', '--pid', String(process.pid)], {
      env,
      cwd: repo,
    });
    assert.equal(r.code, 0, r.stderr);
    const s = JSON.parse(r.stdout);
    const wt = s.worktree as string;
    assert.equal(s.included.files, 3);
    assert.equal(readFileSync(join(wt, '.env'), 'utf8'), 'SECRET=ü😀\n');
    assert.equal(readFileSync(join(wt, 'node_modules', 'pkg', 'index.js'), 'utf8'), 'module.exports = 1;\n');
    assert.ok(!lstatSync(join(wt, '.env')).isSymbolicLink(), 'a copy, not a link');
    assert.ok(!lstatSync(join(wt, 'node_modules')).isSymbolicLink());
    assert.equal(
      readlinkSync(join(wt, 'node_modules', 'pkg', 'bin', 'tool')),
      '../pkg/index.js',
      'links inside the tree are kept as they are',
    );
    assert.equal(readFileSync(join(wt, 'tracked.txt'), 'utf8'), 'committed version\n', 'tracked files come from git');
    assert.ok(!existsSync(join(wt, 'build')), 'ignored but not listed: not copied');
    assert.ok(!existsSync(join(wt, 'untracked-not-ignored.txt')));
    // The copy is independent: changing it leaves the main worktree alone.
    writeFileSync(join(wt, '.env'), 'changed in the worktree\n');
    assert.equal(readFileSync(join(repo, '.env'), 'utf8'), 'SECRET=ü😀\n');
  },
);

test(
  '.worktreeinclude never recreates a listed link: content from inside the repository, outside only by opt-in (issue 13, item 5)',
  { timeout: 60_000 },
  async () => {
    const repo = gitRepo();
    const env = lanesEnv();
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' });
    const outside = tmp('lanes-outside-');
    writeFileSync(join(outside, '.env'), 'SHARED=1\n');
    writeFileSync(join(repo, '.gitignore'), '*.env\nconf/\ncache\n');
    writeFileSync(join(repo, '.worktreeinclude'), 'secret.env\nlocal.env\ndangling.env\ncache\nself.env\n');
    git('add', '.');
    git('commit', '-q', '-m', 'base');
    mkdirSync(join(repo, 'conf'));
    writeFileSync(join(repo, 'conf', 'real.env'), 'LOCAL=ü\n');
    mkdirSync(join(repo, 'conf', 'cache-data'));
    writeFileSync(join(repo, 'conf', 'cache-data', 'a.bin'), 'cached\n');
    symlinkSync(join(outside, '.env'), join(repo, 'secret.env'));
    symlinkSync('conf/real.env', join(repo, 'local.env'));
    symlinkSync(join(repo, 'nowhere.env'), join(repo, 'dangling.env'));
    symlinkSync('conf/cache-data', join(repo, 'cache'));
    symlinkSync('.', join(repo, 'self.env'));
    const start = (e: Record<string, string>) =>
      lanes(['start', '--worktree', '--json', '--pid', String(process.pid)], { env: e, cwd: repo });

    const r = await start(env);
    assert.equal(r.code, 0, r.stderr);
    const s = JSON.parse(r.stdout);
    const wt = s.worktree as string;
    for (const f of ['local.env', 'cache', join('cache', 'a.bin')])
      assert.ok(!lstatSync(join(wt, f)).isSymbolicLink(), `${f}: a copy, never a link`);
    assert.equal(readFileSync(join(wt, 'local.env'), 'utf8'), 'LOCAL=ü\n');
    assert.equal(readFileSync(join(wt, 'cache', 'a.bin'), 'utf8'), 'cached\n');
    for (const f of ['secret.env', 'dangling.env', 'self.env'])
      assert.ok(!existsSync(join(wt, f)) && !isLink(join(wt, f)), `${f} is not copied`);
    const skipped = Object.fromEntries(
      (s.included.skipped as Array<{ path: string; reason: string }>).map((k) => [k.path, k.reason]),
    );
    assert.match(skipped['secret.env'] ?? '', /outside the repository.*include_links_outside = true/);
    assert.match(skipped['dangling.env'] ?? '', /does not exist/);
    assert.match(skipped['self.env'] ?? '', /the repository itself/);
    // The human output says the same as warnings.
    const human = await lanes(['start', '--worktree', '--pid', String(process.pid)], { env, cwd: repo });
    assert.match(human.stderr, /warning: \.worktreeinclude: secret\.env not copied: .*outside the repository/);

    // A repository cannot opt in for its user; the user's own config can.
    const cfg = join(tmp(), 'config.toml');
    writeFileSync(cfg, '[worktree]\ninclude_links_outside = true\n');
    const opted = await start({ ...env, LANES_CONFIG: cfg });
    assert.equal(opted.code, 0, opted.stderr);
    const wt2 = JSON.parse(opted.stdout).worktree as string;
    assert.ok(!isLink(join(wt2, 'secret.env')));
    assert.equal(readFileSync(join(wt2, 'secret.env'), 'utf8'), 'SHARED=1\n');
    writeFileSync(join(wt2, 'secret.env'), 'changed\n');
    assert.equal(readFileSync(join(outside, '.env'), 'utf8'), 'SHARED=1\n', 'the original is untouched');
    writeFileSync(join(repo, 'lanes.toml'), '[worktree]\ninclude_links_outside = true\n');
    const worktrees = git('worktree', 'list');
    const refused = await start(env);
    assert.equal(git('worktree', 'list'), worktrees, 'a config error leaves no worktree behind');
    assert.equal(refused.code, 2);
    assert.match(refused.stdout + refused.stderr, /\[worktree\] only in the user config/);
  },
);

function isLink(p: string): boolean {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

test(
  'a cp without --reflink (BSD cp, as on macOS) gets -c (clonefile) with -R -P -p instead',
  { timeout: 60_000 },
  async () => {
    const repo = gitRepo();
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' });
    writeFileSync(join(repo, '.gitignore'), 'node_modules/\n');
    writeFileSync(join(repo, '.worktreeinclude'), 'node_modules/\n');
    git('add', '.');
    git('commit', '-q', '-m', 'base');
    mkdirSync(join(repo, 'node_modules', 'pkg', 'bin'), { recursive: true });
    writeFileSync(join(repo, 'node_modules', 'pkg', 'index.js'), 'module.exports = 1;\n');
    symlinkSync('../pkg/index.js', join(repo, 'node_modules', 'pkg', 'bin', 'tool'));
    // A cp that answers like BSD cp: any long option is a usage error (exit 64); the rest is done by
    // the real cp, with -c (which GNU cp lacks) recorded and left out.
    const bin = tmp('lanes-bsd-cp-');
    const log = join(bin, 'calls.log');
    const realCp = execFileSync('sh', ['-c', 'command -v cp'], { encoding: 'utf8' }).trim();
    writeFileSync(
      join(bin, 'cp'),
      [
        '#!/bin/sh',
        `echo "$*" >> '${log}'`,
        'for a in "$@"; do case "$a" in --) break ;; --*) echo "cp: illegal option -- -" >&2; echo "usage: cp [-R [-H | -L | -P]] [-fi | -n] [-aclpSsvXx] source_file target_file" >&2; exit 64 ;; esac; done',
        'args=""; for a in "$@"; do [ "$a" = "-c" ] || args="$args \'$a\'"; done',
        `eval exec '${realCp}' $args`,
        '',
      ].join('\n'),
    );
    chmodSync(join(bin, 'cp'), 0o755);
    const env = { ...lanesEnv(), PATH: `${bin}:${process.env['PATH']}` };
    const r = await lanes(['start', '--worktree', '--ticket', 'BSD-1', '--json', '--pid', String(process.pid)], {
      env,
      cwd: repo,
    });
    assert.equal(r.code, 0, r.stderr);
    const wt = JSON.parse(r.stdout).worktree as string;
    assert.equal(readFileSync(join(wt, 'node_modules', 'pkg', 'index.js'), 'utf8'), 'module.exports = 1;\n');
    assert.equal(readlinkSync(join(wt, 'node_modules', 'pkg', 'bin', 'tool')), '../pkg/index.js');
    const calls = readFileSync(log, 'utf8').trim().split('\n');
    // Linux tries GNU's form first; macOS starts with BSD's.
    if (process.platform !== 'darwin') assert.match(calls.shift()!, /--reflink=auto/, 'GNU form first on Linux');
    assert.match(calls.shift()!, /^-R -P -p -c -- /, 'then BSD cp with -c');
    assert.deepEqual(calls, []);
  },
);
