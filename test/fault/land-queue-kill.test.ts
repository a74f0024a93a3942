// `lanes land --queue` SIGKILLed at every step (issue 49, item 3): after each git command it runs
// in turn (a PATH shim for git counts the calls and kills lanes after the N-th), and while its
// [land] check runs (the check signals, then the test kills lanes and everything it started). The
// next run finishes the queue: main ends with exactly the two good sessions' work, in order, once;
// no rebase is left in the middle, no worktree made for the run stays, every branch is on its work.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, allowConfig, gitRepo, lanes, lanesEnv, tmp } from '../helpers/env.js';
import { killingGit } from '../helpers/killing-git.js';

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

function commit(cwd: string, files: Record<string, string>, message: string): void {
  for (const [f, text] of Object.entries(files)) writeFileSync(join(cwd, f), text);
  git(cwd, 'add', '--', ...Object.keys(files));
  git(cwd, 'commit', '-q', '-m', message);
}

/** Two ready sessions behind a moved main: P (live, two commits), Q (ended; its worktree removed). */
async function world(check: string) {
  const repo = gitRepo();
  const env = lanesEnv();
  commit(repo, { 'lanes.toml': `[land]\ncheck = ${JSON.stringify(check)}\n` }, 'base');
  await allowConfig(repo, env);
  const start = async (ticket: string) => {
    const r = await lanes(['start', '--worktree', '--ticket', ticket, '--json', '--pid', String(process.pid)], {
      env,
      cwd: repo,
    });
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout) as { id: string; worktree: string };
  };
  const p = await start('T-P');
  const q = await start('T-Q');
  commit(p.worktree, { 'p1.txt': '1\n' }, 'P: one');
  commit(p.worktree, { 'p2.txt': '2\n' }, 'P: two');
  commit(q.worktree, { 'q.txt': 'q\n' }, 'Q: q');
  commit(repo, { 'm.txt': 'm\n' }, 'main: m');
  const ok = async (args: string[], e = env, cwd = repo) => {
    const r = await lanes(args, { env: e, cwd });
    assert.equal(r.code, 0, `lanes ${args.join(' ')}: ${r.stdout}${r.stderr}`);
  };
  await ok(['ready'], { ...env, LANES_SESSION: p.id }, p.worktree);
  await ok(['end', q.id, '--remove-worktree']);
  assert.ok(!existsSync(q.worktree), 'its worktree removed, its branch kept');
  await ok(['ready', 'T-Q']);
  return { repo, env, p, q };
}

/** What must hold once a run went through: exactly P's then Q's work on main, nothing left behind. */
async function finished(w: Awaited<ReturnType<typeof world>>, what: string): Promise<void> {
  const { repo, env, p } = w;
  const r = await lanes(['land', '--queue', '--json'], { env, cwd: repo });
  assert.equal(r.code, 0, `${what}: the next run: ${r.stdout}${r.stderr}`);
  assert.deepEqual(
    git(repo, 'log', '--format=%s', 'main').split('\n'),
    ['Q: q', 'P: two', 'P: one', 'main: m', 'base', 'initial'],
    what,
  );
  assert.equal(git(repo, 'status', '--porcelain'), '', `${what}: the main worktree`);
  assert.equal(git(p.worktree, 'status', '--porcelain'), '', `${what}: P's worktree`);
  assert.equal(git(p.worktree, 'rev-parse', '--abbrev-ref', 'HEAD').startsWith('lanes/'), true, what);
  const gitDir = git(p.worktree, 'rev-parse', '--absolute-git-dir');
  assert.ok(!existsSync(join(gitDir, 'rebase-merge')) && !existsSync(join(gitDir, 'rebase-apply')), what);
  const worktrees = git(repo, 'worktree', 'list', '--porcelain')
    .split('\n')
    .filter((l) => l.startsWith('worktree '));
  assert.equal(worktrees.length, 2, `${what}: the main worktree and P's, none made for a run: ${worktrees}`);
  const left = join(repo, '.git', 'lanes', 'queue');
  assert.deepEqual(existsSync(left) ? readdirSync(left) : [], [], `${what}: no queue step in flight`);
  const queue = JSON.parse((await lanes(['queue', '--json'], { env, cwd: repo })).stdout) as { ready: unknown[] };
  assert.deepEqual(queue.ready, [], what);
  const lands = (await lanes(['log', '--kind', 'land', '--json', '--limit', '1000'], { env, cwd: repo })).stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { kind: string; ticket: string });
  assert.deepEqual(
    lands.filter((e) => e.kind === 'land').map((e) => e.ticket),
    ['T-P', 'T-Q'],
    `${what}: each landing journaled once`,
  );
}

test('a queue run killed after any of its git commands: the next run finishes it', { timeout: 900_000 }, async () => {
  const shim = killingGit();
  let killed = 0;
  for (let n = 1; ; n++) {
    const w = await world('true');
    rmSync(shim.count, { force: true });
    const env = { ...w.env, PATH: `${shim.bin}:${process.env['PATH']}`, LANES_KILL_AFTER_GIT: String(n) };
    const r = await lanes(['land', '--queue'], { env, cwd: w.repo });
    const calls = Number(readFileSync(shim.count, 'utf8').trim());
    if (r.signal === null && r.code === 0 && calls < n) {
      // The run made fewer than n git calls: every step has had its kill.
      assert.ok(killed >= 20, `killed at ${killed} steps`);
      break;
    }
    assert.equal(r.signal, 'SIGKILL', `kill after git call ${n}: ${r.stdout}${r.stderr}`);
    killed++;
    await finished(w, `killed after git call ${n}`);
  }
});

test(
  'a queue run killed while its check runs, with everything it started: the next run finishes it',
  {
    timeout: 120_000,
  },
  async () => {
    const signals = tmp('lanes-check-signal-');
    const slow = `${signals}.slow`;
    writeFileSync(slow, '');
    // The check says it began, then takes its time while the test wants it to.
    const w = await world(`touch "${signals}/$$"; if [ -e "${slow}" ]; then sleep 60; fi`);
    for (let k = 1; k <= 2; k++) {
      const child = spawn(process.execPath, [CLI, 'land', '--queue'], { cwd: w.repo, env: w.env, detached: true });
      const exited = new Promise((res) => child.on('close', res));
      for (let i = 0; readdirSync(signals).length < k; i++) {
        if (i > 600) assert.fail(`the check ${k} never began`);
        await new Promise((res) => setTimeout(res, 50));
      }
      process.kill(-child.pid!, 'SIGKILL');
      await exited;
    }
    rmSync(slow);
    await finished(w, 'killed in its check, twice');
  },
);
