import { execFileSync } from 'node:child_process';
import { utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { captureWorktree } from '../../src/git/snapshot.js';
import { gitRepo } from '../helpers/env.js';

// git trusts an index entry whose stat data matches the file, except when the file's mtime is not
// older than the index file's own mtime ("racily clean"): then it compares contents. A copy of the
// index stamped "now" loses that, and a same-size rewrite in the index's last second goes unseen.
// The timestamps are set explicitly, so the race is reproduced every run instead of by luck.
test('captureWorktree sees a same-size rewrite made in the second the index was written (racy git)', async () => {
  const repo = gitRepo();
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' });
  // ctime changes with every write and cannot be set; without trustctime git compares mtime, size,
  // inode, … which the test controls.
  git('config', 'core.trustctime', 'false');
  const file = join(repo, 'notes.txt');
  const second = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);
  writeFileSync(file, 'version 1\n');
  utimesSync(file, second, second);
  git('add', 'notes.txt');
  utimesSync(join(repo, '.git', 'index'), second, second);
  writeFileSync(file, 'version 2\n');
  utimesSync(file, second, second);

  const captured = await captureWorktree(repo);
  assert.equal(git('cat-file', 'blob', `${captured.tree}:notes.txt`), 'version 2\n');
  // git itself, reading the real index, sees the change too (the setup is what the test claims).
  assert.equal(git('diff-files', '--name-only'), 'notes.txt\n');
});
