import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gitRepo, lanes, lanesEnv } from '../helpers/env.js';

// Issue 47 (found by the README's night, test/docs/night): lanes land refused whenever the worktree
// that has the target checked out held an untracked file, though bringing it along touches only the
// landed paths: the files `lanes setup` had just written (not committed yet) stopped every land of
// the morning. Now a change of a tracked file still stops it, and an untracked file only where the
// land writes (git's read-tree -u would refuse it after the target moved).

test('land brings main along past untracked files elsewhere, and refuses one where it writes', async () => {
  const repo = gitRepo();
  const env = lanesEnv();
  const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
  const start = async (ticket: string) => {
    const r = await lanes(['start', '--worktree', '--ticket', ticket, '--json', '--pid', String(process.pid)], {
      env,
      cwd: repo,
    });
    assert.equal(r.code, 0, r.stderr);
    const s = JSON.parse(r.stdout) as { id: string; worktree: string };
    return { ...s, opts: { env: { ...env, LANES_SESSION: s.id }, cwd: s.worktree } };
  };

  const a = await start('T-1');
  mkdirSync(join(a.worktree, 'src'));
  writeFileSync(join(a.worktree, 'src', 'a.ts'), 'a\n');
  git(a.worktree, 'add', '.');
  git(a.worktree, 'commit', '-qm', 'a');
  writeFileSync(join(repo, 'lanes.toml'), '# mine, not committed yet\n');
  const landed = await lanes(['land'], a.opts);
  assert.equal(landed.code, 0, landed.stderr);
  assert.equal(readFileSync(join(repo, 'src', 'a.ts'), 'utf8'), 'a\n', 'main brought along');
  assert.equal(
    readFileSync(join(repo, 'lanes.toml'), 'utf8'),
    '# mine, not committed yet\n',
    'the untracked file kept',
  );

  // An untracked file where the land writes (the same path; a file where it makes a directory).
  for (const [write, inTheWay] of [
    ['b.txt', 'b.txt'],
    ['docs/b.md', 'docs'],
  ] as const) {
    const b = await start(`T-${write}`);
    mkdirSync(join(b.worktree, 'docs'), { recursive: true });
    writeFileSync(join(b.worktree, write), 'b\n');
    git(b.worktree, 'add', '.');
    git(b.worktree, 'commit', '-qm', 'b');
    writeFileSync(join(repo, inTheWay), "the person's own\n");
    const before = git(repo, 'rev-parse', 'main');
    const refused = await lanes(['land'], b.opts);
    assert.equal(refused.code, 1, refused.stderr);
    assert.match(refused.stderr, new RegExp(`uncommitted changes \\(${inTheWay}\\); not moving it under them`));
    assert.equal(git(repo, 'rev-parse', 'main'), before, 'nothing published');
    assert.equal(readFileSync(join(repo, inTheWay), 'utf8'), "the person's own\n");
    execFileSync('rm', ['-f', join(repo, inTheWay)]);
  }

  // A change of a tracked file still stops it.
  const c = await start('T-3');
  writeFileSync(join(c.worktree, 'c.txt'), 'c\n');
  git(c.worktree, 'add', '.');
  git(c.worktree, 'commit', '-qm', 'c');
  writeFileSync(join(repo, 'README.md'), 'edited, not committed\n');
  const tracked = await lanes(['land'], c.opts);
  assert.equal(tracked.code, 1, tracked.stderr);
  assert.match(tracked.stderr, /uncommitted changes \(README\.md\)/);
  assert.equal(existsSync(join(repo, 'c.txt')), false);
});
