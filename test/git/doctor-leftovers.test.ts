import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { allowConfig, gitRepo, lanes, lanesEnv, tmp } from '../helpers/env.js';

// Issue 45, item 6: what a killed lanes new, stop or gc --worktrees leaves, each made by hand here
// (the storm in test/fault/fleet-kill-storm makes them by killing): lanes doctor names each one
// and --fix settles it without deleting work.

interface Finding {
  kind: string;
  severity: string;
  message: string;
  fixed?: string;
  unfixable?: string;
}

test('doctor names what killed commands left; --fix deletes only merged branches, keeps work, unlocks, reruns teardowns', async () => {
  const repo = gitRepo();
  const out = tmp('lanes-leftovers-out-');
  const env: Record<string, string> = { ...lanesEnv(), LANES_HOST_ID: 'leftover-host', OUT: out };
  const opts = { env, cwd: repo };
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' });
  writeFileSync(
    join(repo, 'lanes.toml'),
    `[session]\nsetup = 'true'\nteardown = 'echo torn >> "$OUT/teardowns"; test -e "$OUT/allow"'\n`,
  );
  git('add', 'lanes.toml');
  git('commit', '-qm', 'lanes.toml');
  await lanes(['guard', 'install'], opts);
  await allowConfig(repo, env);

  // A merged lanes branch and one holding a commit of its own, neither checked out.
  git('branch', 'lanes/merged-one');
  git('checkout', '-qb', 'lanes/kept-one');
  writeFileSync(join(repo, 'work.txt'), 'a night of work\n');
  git('add', 'work.txt');
  git('commit', '-qm', 'work');
  git('checkout', '-q', 'main');
  // A worktree a killed removal left locked (its pid is gone).
  const gone = spawnSync('true').pid!;
  const wt = join(tmp('lanes-leftovers-wt-'), 'locked');
  git('worktree', 'add', '-q', '-b', 'lanes/locked', wt);
  git('worktree', 'lock', '--reason', `lanes: removing (pid ${gone} on leftover-host)`, wt);
  // A hand-over directory of a lanes new killed two minutes ago.
  const handoff = join(env['LANES_HOME']!, 'run', 'new-env-killed');
  mkdirSync(handoff, { recursive: true });
  const old = new Date(Date.now() - 120_000);
  utimesSync(handoff, old, old);
  // A session whose teardown failed.
  const s = await lanes(['new', 'T-1', '--background', '--json', '--', 'sleep', '600'], opts);
  const id = (JSON.parse(s.stdout) as { session: string }).session;
  assert.match((await lanes(['stop', id], opts)).stderr, /teardown failed/);

  const check = await lanes(['doctor', '--json'], opts);
  assert.equal(check.code, 3, check.stderr);
  const found = (JSON.parse(check.stdout) as { findings: Finding[] }).findings;
  // kept-worktree: the stopped session's worktree and the locked one (information).
  const kinds = found
    .map((f) => f.kind)
    .filter((k) => k !== 'kept-worktree')
    .sort();
  assert.deepEqual(kinds, ['handoff-dir', 'kept-branch', 'merged-branch', 'stale-worktree-lock', 'teardown-due']);
  assert.equal(found.find((f) => f.kind === 'kept-branch')!.severity, 'info', 'kept work is no fault');
  assert.match(found.find((f) => f.kind === 'kept-branch')!.message, /lanes\/kept-one .*lanes land --ticket/);

  writeFileSync(join(out, 'allow'), '');
  const fixed = await lanes(['doctor', '--fix', '--json'], opts);
  const report = (JSON.parse(fixed.stdout) as { findings: Finding[] }).findings;
  for (const kind of ['handoff-dir', 'merged-branch', 'stale-worktree-lock', 'teardown-due'])
    assert.ok(report.find((f) => f.kind === kind)?.fixed, `${kind} fixed: ${JSON.stringify(report)}`);
  assert.ok(
    report.every((f) => !(f.fixed && f.unfixable)),
    'a fixed finding is not also called unfixed',
  );
  assert.equal(fixed.code, 0, fixed.stdout);
  assert.equal(git('branch', '--list', 'lanes/merged-one'), '', 'the merged branch is deleted');
  assert.match(git('log', '-1', '--format=%s', 'lanes/kept-one'), /work/, 'the unmerged branch is kept');
  assert.ok(!existsSync(handoff));
  assert.doesNotMatch(git('worktree', 'list', '--porcelain'), /^locked/m, 'the worktree is unlocked');
  assert.ok(existsSync(join(wt, 'README.md')), 'and not removed');
  assert.equal((await lanes(['doctor'], opts)).code, 0);
  assert.match((await lanes(['teardown', id], opts)).stdout, /no teardown due/);
});

test('a fresh hand-over directory and a lock of a live remover are left alone', async () => {
  const repo = gitRepo();
  const env: Record<string, string> = { ...lanesEnv(), LANES_HOST_ID: 'leftover-host' };
  const opts = { env, cwd: repo };
  await lanes(['guard', 'install'], opts);
  const handoff = join(env['LANES_HOME']!, 'run', 'new-env-starting');
  mkdirSync(handoff, { recursive: true });
  const wt = join(tmp('lanes-leftovers-wt-'), 'busy');
  execFileSync('git', ['worktree', 'add', '-q', '-b', 'lanes/busy', wt], { cwd: repo });
  execFileSync('git', ['worktree', 'lock', '--reason', `lanes: removing (pid ${process.pid} on leftover-host)`, wt], {
    cwd: repo,
  });
  const fixed = await lanes(['doctor', '--fix', '--json'], opts);
  assert.equal(fixed.code, 0, fixed.stdout);
  const kinds = (JSON.parse(fixed.stdout) as { findings: Finding[] }).findings.map((f) => f.kind);
  assert.deepEqual(kinds, ['kept-worktree'], 'only the worktree, as information');
  assert.ok(existsSync(handoff));
  assert.ok(
    execFileSync('git', ['worktree', 'list', '--porcelain'], { cwd: repo, encoding: 'utf8' }).includes('locked'),
  );
});
