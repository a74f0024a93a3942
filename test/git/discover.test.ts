import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { discoverRepo } from '../../src/git/discover.js';
import { gitRepo, tmp } from '../helpers/env.js';

// The hooks find the repository by reading .git instead of running git; it must agree with git.
function gitSays(cwd: string): { commonDir: string; worktreeRoot: string } | null {
  try {
    const [commonDir, worktreeRoot] = execFileSync(
      'git',
      ['rev-parse', '--path-format=absolute', '--git-common-dir', '--show-toplevel'],
      { cwd, stdio: 'pipe', encoding: 'utf8' },
    )
      .trim()
      .split('\n');
    return { commonDir: commonDir ?? '', worktreeRoot: worktreeRoot ?? '' };
  } catch {
    return null;
  }
}

const env = {};

test('discoverRepo agrees with git rev-parse on main and linked worktrees, subdirectories, submodules and symlinks', () => {
  const base = tmp();
  mkdirSync(join(base, 'répo 日本'));
  const repo = gitRepo(join(base, 'répo 日本'));
  mkdirSync(join(repo, 'src', 'deep'), { recursive: true });
  execFileSync('git', ['worktree', 'add', '-q', '-b', 'side', join(base, 'linked wt')], { cwd: repo });
  mkdirSync(join(base, 'linked wt', 'sub'));
  symlinkSync(repo, join(base, 'link-to-repo'));
  mkdirSync(join(base, 'subrepo'));
  const sub = gitRepo(join(base, 'subrepo'));
  execFileSync('git', ['-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', sub, 'mod'], { cwd: repo });
  const outside = join(base, 'plain');
  mkdirSync(outside);
  const places = [
    repo,
    join(repo, 'src', 'deep'),
    join(base, 'linked wt'),
    join(base, 'linked wt', 'sub'),
    join(base, 'link-to-repo', 'src'),
    join(repo, 'mod'),
    outside,
  ];
  for (const cwd of places) {
    assert.deepEqual(discoverRepo(cwd, env), gitSays(cwd), cwd);
  }
});

test('discoverRepo leaves the answer to git when git would answer differently', () => {
  const repo = gitRepo();
  assert.equal(discoverRepo(repo, { GIT_DIR: join(repo, '.git') }), undefined);
  assert.equal(discoverRepo(repo, { GIT_CEILING_DIRECTORIES: repo }), undefined);
  assert.equal(discoverRepo(join(repo, '.git'), env), undefined);
  const broken = tmp();
  writeFileSync(join(broken, '.git'), 'not a gitdir line\n');
  assert.equal(discoverRepo(broken, env), undefined);
});
