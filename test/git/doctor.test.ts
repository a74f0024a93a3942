import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gitRepo, lanes, lanesEnv, node } from '../helpers/env.js';

test(
  'doctor finds dead sessions, their claims, shared and vanished worktrees; --fix saves work, ends, releases and prunes',
  { timeout: 60_000 },
  async () => {
    const repo = gitRepo();
    const env = lanesEnv();
    const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' });
    const owner = node('sleeper.mjs', [], { env });
    const [, pid] = (await owner.waitFor(/ready (\d+)/)) as RegExpMatchArray;
    const dead = JSON.parse(
      (await lanes(['start', '--worktree', '--ticket', 'T9', '--json', '--pid', pid!], { env, cwd: repo })).stdout,
    );
    await lanes(['claim', 'ticket:T9'], { env: { ...env, LANES_SESSION: dead.id }, cwd: dead.worktree });
    writeFileSync(join(dead.worktree, 'unsaved.txt'), 'eight hours of work\n');
    owner.proc.kill('SIGKILL');
    await owner.exited;
    // Two live sessions in the main worktree; a worktree whose directory vanished.
    await lanes(['start', '--pid', String(process.pid)], { env, cwd: repo });
    await lanes(['start', '--pid', String(process.pid)], { env, cwd: repo });
    const gone = join(repo, '..', 'vanished-wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'vanished', gone);
    rmSync(gone, { recursive: true });

    const check = await lanes(['doctor', '--json'], { env, cwd: repo });
    assert.equal(check.code, 3, check.stderr);
    const kinds = JSON.parse(check.stdout)
      .findings.map((f: { kind: string }) => f.kind)
      .sort();
    assert.deepEqual(kinds, ['dead-claim', 'dead-session', 'guard-missing', 'missing-worktree', 'shared-worktree']);

    const fix = await lanes(['doctor', '--fix', '--json'], { env, cwd: repo });
    const report = JSON.parse(fix.stdout);
    const ds = report.findings.find((f: { kind: string }) => f.kind === 'dead-session');
    assert.match(ds.fixed, new RegExp(`ended, work saved as refs/lanes/snapshots/${dead.id}/1, released ticket:T9`));
    assert.equal(git(repo, 'show', `refs/lanes/snapshots/${dead.id}/1:unsaved.txt`), 'eight hours of work\n');
    assert.equal(
      readFileSync(join(dead.worktree, 'unsaved.txt'), 'utf8'),
      'eight hours of work\n',
      'no unsaved work deleted',
    );
    assert.ok(!git(repo, 'worktree', 'list').includes('vanished-wt'), 'the vanished worktree was pruned');
    const all = JSON.parse((await lanes(['ls', '--all', '--json'], { env, cwd: repo })).stdout);
    assert.equal(all.find((s: { id: string }) => s.id === dead.id).state, 'ended');
    assert.ok(report.findings.every((f: { severity: string }) => ['error', 'warning', 'info'].includes(f.severity)));
    const guard = report.findings.find((f: { kind: string }) => f.kind === 'guard-missing');
    assert.match(guard.fixed, /installed/);
    assert.equal((await lanes(['guard', 'status'], { env, cwd: repo })).code, 0, 'the guard is installed');
    const shared = report.findings.find((f: { kind: string }) => f.kind === 'shared-worktree');
    assert.equal(shared.fixed, undefined);
    assert.match(shared.unfixable, /never moves a live session/);
    assert.equal(report.open, 1);
    assert.equal(fix.code, 3, 'the shared worktree remains to be handled by a person');
  },
);
