import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gitRepo, lanes, lanesEnv } from '../helpers/env.js';

test(
  'conflicts: shared files (committed and uncommitted), predicted textual conflicts, same ticket, and a competing fix on main',
  { timeout: 60_000 },
  async () => {
    const repo = gitRepo();
    const env = lanesEnv();
    const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' });
    writeFileSync(join(repo, 'billing.ts'), 'line 1\nline 2\nline 3\n');
    writeFileSync(join(repo, 'docs.md'), 'docs\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'base');
    const start = async (ticket: string, ...extra: string[]) =>
      JSON.parse(
        (
          await lanes(['start', '--worktree', '--ticket', ticket, '--json', '--pid', String(process.pid), ...extra], {
            env,
            cwd: repo,
          })
        ).stdout,
      );
    const a = await start('SEAT-1');
    const b = await start('SEAT-1', '--join');
    // A commits a change to line 2; B changes line 2 differently but leaves it uncommitted.
    writeFileSync(join(a.worktree, 'billing.ts'), 'line 1\nA fixed line 2\nline 3\n');
    git(a.worktree, 'commit', '-q', '-am', 'A fix');
    writeFileSync(join(b.worktree, 'billing.ts'), 'line 1\nB fixed line 2 too\nline 3\n');
    const clean = await lanes(['conflicts', '--json'], { env, cwd: repo });
    assert.equal(clean.code, 3, clean.stderr);
    const report = JSON.parse(clean.stdout);
    assert.equal(report.pairs.length, 1);
    assert.deepEqual(report.pairs[0].both, ['billing.ts']);
    assert.deepEqual(report.pairs[0].conflicts, ['billing.ts']);
    assert.deepEqual(report.sameTicket, [{ ticket: 'SEAT-1', sessions: [a.id, b.id] }]);
    assert.equal(report.pairs[0].aStat[0].added, 1);
    // Nothing was touched: B's change is still uncommitted, A's branch unchanged.
    assert.equal(git(b.worktree, 'status', '--porcelain'), ' M billing.ts\n');
    // A competing fix lands on main: A is told, with main's diffstat.
    writeFileSync(join(repo, 'billing.ts'), 'line 1\nline 2\nline 3 fixed on main\n');
    git(repo, 'commit', '-q', '-am', 'hotfix on main');
    const after = JSON.parse((await lanes(['conflicts', '--json'], { env, cwd: repo })).stdout);
    const comp = after.competing.find((c: { session: string }) => c.session === a.id);
    assert.deepEqual(comp.files, ['billing.ts']);
    assert.equal(comp.target, 'main');
    const text = await lanes(['conflicts'], { env, cwd: repo });
    assert.match(text.stdout, /competing fix landed on main/);
  },
);
