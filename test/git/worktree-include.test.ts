import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gitRepo, lanes, lanesEnv } from '../helpers/env.js';

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
