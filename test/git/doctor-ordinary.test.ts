import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gitRepo, lanes, lanesEnv, tmp } from '../helpers/env.js';

interface Finding {
  kind: string;
  severity: string;
  message: string;
  fixed?: string;
  unfixable?: string;
}

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' });

test('doctor is green after ordinary use: kept worktrees of ended sessions, their work saved, are information', async () => {
  const repo = gitRepo();
  const env = lanesEnv();
  assert.equal((await lanes(['guard', 'install'], { env, cwd: repo })).code, 0);
  const worked: string[] = [];
  for (const t of ['T1', 'T2']) {
    const s = JSON.parse(
      (await lanes(['start', '--worktree', '--ticket', t, '--pid', String(process.pid), '--json'], { env, cwd: repo }))
        .stdout,
    );
    if (t === 'T1') writeFileSync(join(s.worktree, 'draft.txt'), 'left for tomorrow\n');
    const end = await lanes(['end', '--force', s.id], { env, cwd: repo });
    assert.equal(end.code, 0, end.stderr);
    worked.push(s.worktree);
  }
  const r = await lanes(['doctor', '--json'], { env, cwd: repo });
  const report = JSON.parse(r.stdout) as { findings: Finding[]; open: number };
  assert.equal(r.code, 0, r.stdout);
  assert.equal(report.open, 0);
  assert.deepEqual(
    report.findings.map((f) => [f.kind, f.severity]),
    [
      ['kept-worktree', 'info'],
      ['kept-worktree', 'info'],
    ],
  );
  assert.match(report.findings[0]!.message, /its 1 uncommitted files are saved as refs\/lanes\/snapshots\//);
  assert.match(report.findings[1]!.message, /nothing uncommitted/);
  const text = await lanes(['doctor'], { env, cwd: repo });
  assert.equal(text.code, 0);
  assert.match(text.stdout, /healthy \(information only\)/);
});

test('work in a kept worktree changed after its snapshot is a warning; --fix saves it and doctor is green', async () => {
  const repo = gitRepo();
  const env = lanesEnv();
  await lanes(['guard', 'install'], { env, cwd: repo });
  const s = JSON.parse(
    (await lanes(['start', '--worktree', '--pid', String(process.pid), '--json'], { env, cwd: repo })).stdout,
  );
  writeFileSync(join(s.worktree, 'a.txt'), 'one\n');
  await lanes(['end', '--force', s.id], { env, cwd: repo });
  writeFileSync(join(s.worktree, 'a.txt'), 'two, after the end\n');
  // And a worktree made by hand, with work in it and no session at all.
  const manual = join(tmp(), 'by-hand');
  git(repo, 'worktree', 'add', '-q', '-b', 'by-hand', manual);
  writeFileSync(join(manual, 'b.txt'), 'mine\n');

  const check = await lanes(['doctor', '--json'], { env, cwd: repo });
  assert.equal(check.code, 3);
  const found = (JSON.parse(check.stdout).findings as Finding[]).filter((f) => f.kind === 'unsaved-worktree');
  assert.equal(found.length, 2, check.stdout);
  assert.ok(found.every((f) => f.severity === 'warning'));

  const fix = await lanes(['doctor', '--fix', '--json'], { env, cwd: repo });
  const fixed = (JSON.parse(fix.stdout).findings as Finding[]).filter((f) => f.kind === 'unsaved-worktree');
  assert.ok(
    fixed.every((f) => /^saved refs\/lanes\/snapshots\//.test(f.fixed ?? '')),
    fix.stdout,
  );
  assert.equal(fix.code, 0, fix.stdout);
  assert.equal(git(repo, 'show', `refs/lanes/snapshots/${s.id}/2:a.txt`), 'two, after the end\n');
  assert.equal(git(repo, 'show', 'refs/lanes/snapshots/orphan.by-hand/1:b.txt'), 'mine\n');
  const again = await lanes(['doctor', '--json'], { env, cwd: repo });
  assert.equal(again.code, 0, again.stdout);
});

test('without the guard doctor warns; --fix installs it (keeping an existing hook) and says what it cannot settle', async () => {
  const repo = gitRepo();
  const env = lanesEnv();
  const check = await lanes(['doctor'], { env, cwd: repo });
  assert.equal(check.code, 3);
  assert.match(check.stdout, /warning {2}guard-missing/);
  const fix = await lanes(['doctor', '--fix'], { env, cwd: repo });
  assert.equal(fix.code, 0, fix.stdout);
  assert.match(fix.stdout, /fixed {2}guard-missing: .* -> installed/);
  assert.equal((await lanes(['guard', 'status'], { env, cwd: repo })).code, 0);
});
