import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gitRepo, lanes, lanesEnv } from '../helpers/env.js';

// Nothing is journaled twice for the same fact (issue 24, item 2): `lanes conflicts` (and the
// dashboard, which asks every 10 s) records predicted conflicts only when the set of them changes.
// Before, every call wrote an identical conflicts.found entry (about 2,900 a night per repository).

test('conflicts.found is written when the findings change, not on every call', async () => {
  const repo = gitRepo();
  const env = lanesEnv();
  const git = (cwd: string, ...a: string[]) => execFileSync('git', a, { cwd, encoding: 'utf8' });
  writeFileSync(join(repo, 'a.ts'), '1\n2\n3\n');
  writeFileSync(join(repo, 'b.ts'), 'b\n');
  git(repo, 'add', '.');
  git(repo, 'commit', '-qm', 'base');
  const start = async (ticket: string) =>
    JSON.parse(
      (
        await lanes(['start', '--worktree', '--ticket', ticket, '--json', '--pid', String(process.pid)], {
          env,
          cwd: repo,
        })
      ).stdout,
    ) as { worktree: string };
  const x = await start('T-1');
  const y = await start('T-2');
  writeFileSync(join(x.worktree, 'a.ts'), '1\nx\n3\n');
  writeFileSync(join(y.worktree, 'a.ts'), '1\ny\n3\n');
  const entries = async () =>
    (await lanes(['log', '--kind', 'conflicts.found', '--json'], { env, cwd: repo })).stdout.split('\n').filter(Boolean)
      .length;
  for (let i = 0; i < 3; i++) assert.equal((await lanes(['conflicts'], { env, cwd: repo })).code, 3);
  assert.equal(await entries(), 1, 'three identical findings, one entry');
  // A new overlap is a new fact.
  writeFileSync(join(x.worktree, 'b.ts'), 'x\n');
  writeFileSync(join(y.worktree, 'b.ts'), 'y\n');
  assert.equal((await lanes(['conflicts'], { env, cwd: repo })).code, 3);
  assert.equal((await lanes(['conflicts'], { env, cwd: repo })).code, 3);
  assert.equal(await entries(), 2);
});
