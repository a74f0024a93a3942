import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { commitPaths } from '../../src/git/commit-paths.js';
import { isLanesError } from '../../src/core/errors.js';
import { gitRepo, tmp } from '../helpers/env.js';

test('commitPaths with no paths commits nothing (git add -A -- with no pathspec would take the whole worktree)', async () => {
  const repo = gitRepo();
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' });
  const before = git('rev-parse', 'HEAD');
  writeFileSync(join(repo, 'README.md'), 'changed by somebody else\n');
  writeFileSync(join(repo, 'theirs.txt'), 'untracked work of somebody else\n');
  await assert.rejects(commitPaths({ cwd: repo, worktree: repo, paths: [], message: 'nothing named' }), (e) =>
    isLanesError(e, 'E_USAGE'),
  );
  assert.equal(git('rev-parse', 'HEAD'), before);
  assert.equal(git('status', '--porcelain'), ' M README.md\n?? theirs.txt\n');
});

test('the first commit of a repository (no index yet) commits the path and leaves a valid index, nothing staged', async () => {
  const repo = tmp('lanes-first-');
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' });
  git('init', '-q', '-b', 'main');
  git('config', 'user.name', 'T');
  git('config', 'user.email', 't@lanes.invalid');
  writeFileSync(join(repo, 'f.txt'), 'first\n');
  writeFileSync(join(repo, 'other.txt'), 'not named\n');
  const r = await commitPaths({ cwd: repo, worktree: repo, paths: ['f.txt'], message: 'first' });
  assert.equal(r.parent, null);
  assert.equal(git('show', 'main:f.txt'), 'first\n');
  assert.equal(git('status', '--porcelain'), '?? other.txt\n', 'the committed file is not shown staged as deleted');
  assert.equal(git('ls-files', '--stage'), `100644 ${git('rev-parse', 'main:f.txt').trim()} 0\tf.txt\n`);
});
