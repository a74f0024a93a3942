import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gitRepo, lanes, lanesChild, lanesEnv, node } from '../helpers/env.js';
import { gitPause } from '../helpers/git-pause.js';

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

/** A repository with main checked out and a session on its own worktree and ticket, its work committed. */
async function fleet(env: Record<string, string>, tickets: string[], owner = String(process.pid)) {
  const repo = gitRepo();
  writeFileSync(join(repo, 'app.txt'), 'base\n');
  git(repo, 'add', '.');
  git(repo, 'commit', '-q', '-m', 'base');
  const sessions = [];
  for (const t of tickets) {
    const s = JSON.parse(
      (await lanes(['start', '--worktree', '--ticket', t, '--json', '--pid', owner], { env, cwd: repo })).stdout,
    );
    const as = { env: { ...env, LANES_SESSION: s.id as string }, cwd: s.worktree as string };
    assert.equal((await lanes(['claim', `ticket:${t}`], as)).code, 0);
    writeFileSync(join(s.worktree, `${t}.txt`), `work of ${t}\n`);
    git(s.worktree, 'add', '.');
    git(s.worktree, 'commit', '-q', '-m', `${t}: work`);
    sessions.push({ id: s.id as string, worktree: s.worktree as string, as });
  }
  return { repo, sessions };
}

test(
  'racing lands into one branch: the second waits for the first to finish, then lands on top (issue 13, item 6)',
  { timeout: 60_000 },
  async () => {
    const env = lanesEnv();
    const { repo, sessions } = await fleet(env, ['T1', 'T2']);
    const [a, b] = sessions as [(typeof sessions)[0], (typeof sessions)[0]];
    // Hold A between moving main and bringing the checked-out main worktree along.
    const pause = gitPause('read-tree', a.as.env);
    pause.arm();
    const first = lanesChild(['land', '--json'], { env: pause.env, cwd: a.worktree });
    await pause.paused();
    assert.equal(git(repo, 'rev-parse', 'main'), git(a.worktree, 'rev-parse', 'HEAD'), 'main moved, files not yet');
    const second = lanesChild(['land', '--json'], b.as);
    // Before the fix B read the half-brought worktree as "uncommitted changes" and gave up.
    await second.waitFor(/waiting for the landing into main/, 'stderr');
    await pause.release();
    assert.equal((await first.exited).code, 0, first.stderr);
    assert.equal((await second.exited).code, 0, second.stderr);
    assert.equal(JSON.parse(second.stdout).mode, 'merge', 'B lands on top of A');
    assert.equal(git(repo, 'status', '--porcelain'), '', 'the main worktree is clean');
    for (const f of ['T1.txt', 'T2.txt', 'app.txt']) assert.ok(existsSync(join(repo, f)), `${f} in main`);
  },
);

test(
  'a target moved by someone else while landing: exit 3, nothing published, what to do',
  { timeout: 60_000 },
  async () => {
    const env = lanesEnv();
    const { repo, sessions } = await fleet(env, ['T1']);
    const [a] = sessions as [(typeof sessions)[0]];
    const pause = gitPause('update-ref', a.as.env);
    pause.arm();
    const landing = lanesChild(['land'], { env: pause.env, cwd: a.worktree });
    await pause.paused();
    // Another writer moves main (a plain update-ref: no index lock, no lanes).
    const base = git(repo, 'rev-parse', 'main');
    const other = git(repo, 'commit-tree', `${base}^{tree}`, '-p', base, '-m', 'someone else');
    git(repo, 'update-ref', 'refs/heads/main', other, base);
    await pause.release();
    const r = await landing.exited;
    assert.equal(r.code, 3, landing.stderr);
    assert.match(landing.stderr, /main moved while landing; nothing was published/);
    assert.match(landing.stderr, /run lanes land again/);
    assert.equal(git(repo, 'rev-parse', 'main'), other, "the other writer's commit is kept");
  },
);

test(
  'land re-checks its fencing token right before moving the target: a takeover in between is refused (exit 4)',
  { timeout: 60_000 },
  async () => {
    const env = lanesEnv();
    const owner = node('sleeper.mjs', [], { env });
    const [, pid] = (await owner.waitFor(/ready (\d+)/)) as RegExpMatchArray;
    const { repo, sessions } = await fleet(env, ['T1'], pid);
    const [a] = sessions as [(typeof sessions)[0]];
    const mainBefore = git(repo, 'rev-parse', 'main');
    // Hold A's land after it checked it holds T1 (token 1) and before it moves main.
    const pause = gitPause('merge-tree', a.as.env);
    pause.arm();
    const landing = lanesChild(['land'], { env: pause.env, cwd: a.worktree });
    await pause.paused();
    owner.proc.kill('SIGKILL');
    await owner.exited;
    const b = (await lanes(['start', '--pid', String(process.pid)], { env, cwd: repo })).stdout.trim();
    const took = await lanes(['claim', 'ticket:T1'], { env: { ...env, LANES_SESSION: b }, cwd: repo });
    // A's start claimed T1 (token 1) and the fleet's claim again (2): the takeover is 3.
    assert.match(took.stdout, /token 3/);
    await pause.release();
    const r = await landing.exited;
    assert.equal(r.code, 4, landing.stderr);
    assert.equal(git(repo, 'rev-parse', 'main'), mainBefore, 'nothing published by the fenced-off holder');
  },
);

test(
  'lanes commit moves its branch by compare-and-swap: a writer that skips the index lock is never overwritten',
  { timeout: 60_000 },
  async () => {
    const env = lanesEnv();
    const { sessions } = await fleet(env, ['T1']);
    const [a] = sessions as [(typeof sessions)[0]];
    writeFileSync(join(a.worktree, 'mine.txt'), 'mine\n');
    const pause = gitPause('update-ref', a.as.env);
    pause.arm();
    const committing = lanesChild(['commit', 'mine.txt', '-m', 'mine'], { env: pause.env, cwd: a.worktree });
    await pause.paused();
    const branch = git(a.worktree, 'symbolic-ref', 'HEAD');
    const parent = git(a.worktree, 'rev-parse', 'HEAD');
    const other = git(a.worktree, 'commit-tree', `${parent}^{tree}`, '-p', parent, '-m', 'update-ref writer');
    git(a.worktree, 'update-ref', branch, other, parent);
    await pause.release();
    const r = await committing.exited;
    assert.equal(r.code, 3, committing.stderr);
    assert.match(committing.stderr, /moved while committing/);
    assert.equal(git(a.worktree, 'rev-parse', branch), other, "the other writer's commit is not lost");
  },
);
