import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, FIXTURES, gitRepo, lanes, lanesEnv, tmp } from '../helpers/env.js';

// Issue 45, item 4: a ticket can go on. `lanes new T` after T's agent died with work left says so
// and needs --resume (its worktree and branch, made again from its branch and last snapshot when
// gc removed it; its conversation resumed) or --fresh (a new worktree; the old work named); on a
// terminal it asks. `lanes land --ticket T` lands a finished session's branch after gc removed its
// worktree; the report lists it as finished, not landed; `lanes adopt S` works in a shell with no session.

function world() {
  const env = lanesEnv();
  const repo = gitRepo();
  return { env, repo, opts: { env, cwd: repo } };
}
type W = ReturnType<typeof world>;
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

/** An agent that commits one file, leaves two uncommitted, and is killed: a death with work left. */
async function diedWithWork(w: W, ticket: string): Promise<{ id: string; worktree: string }> {
  const work =
    'echo a > a.txt && git add a.txt && git commit -qm work && echo b > b.txt && echo c > c.txt && touch done && exec sleep 600';
  const r = await lanes(['new', ticket, '--background', '--json', '--', 'sh', '-c', work], w.opts);
  assert.equal(r.code, 0, r.stderr);
  const { session: id, worktree } = JSON.parse(r.stdout) as { session: string; worktree: string };
  for (let i = 0; i < 100 && !existsSync(join(worktree, 'done')); i++) await new Promise((x) => setTimeout(x, 50));
  const owner = (
    JSON.parse((await lanes(['ls', '--json'], w.opts)).stdout) as { id: string; owner: { pid: number } }[]
  ).find((s) => s.id === id)!.owner.pid;
  const agent = Number(readFileSync(`/proc/${owner}/task/${owner}/children`, 'utf8').trim().split(/\s+/)[0]);
  process.kill(agent, 'SIGKILL');
  for (let i = 0; i < 100; i++) {
    const all = JSON.parse((await lanes(['ls', '--all', '--json'], w.opts)).stdout) as { id: string; state: string }[];
    if (all.find((s) => s.id === id)?.state === 'ended') break;
    await new Promise((x) => setTimeout(x, 50));
  }
  return { id, worktree };
}

test('lanes new T after T died with work left: refused without a choice; --resume goes on in its worktree, --fresh beside it', async () => {
  const w = world();
  const dead = await diedWithWork(w, 'SHOP-4');
  const bare = await lanes(['new', 'SHOP-4', '--background', '--', 'sleep', '600'], w.opts);
  assert.equal(bare.code, 2, bare.stderr);
  assert.match(
    bare.stderr,
    /the last session of SHOP-4 \(s-\w+\) died \(killed by SIGKILL\); it left its worktree .*shop-4 with 3 uncommitted file\(s\), branch lanes\/shop-4 1 commit\(s\) ahead/,
  );
  assert.match(bare.stderr, /lanes new SHOP-4 --resume .*--fresh/);
  const resumed = await lanes(['new', 'SHOP-4', '--background', '--resume', '--json', '--', 'sleep', '600'], w.opts);
  assert.equal(resumed.code, 0, resumed.stderr);
  const r = JSON.parse(resumed.stdout) as { session: string; worktree: string; branch: string };
  assert.equal(r.worktree, dead.worktree, 'the same worktree');
  assert.equal(r.branch, 'lanes/shop-4');
  assert.ok(existsSync(join(r.worktree, 'b.txt')) && existsSync(join(r.worktree, 'c.txt')), 'its files');
  await lanes(['stop', r.session], w.opts);

  const w2 = world();
  await diedWithWork(w2, 'SHOP-5');
  const fresh = await lanes(['new', 'SHOP-5', '--background', '--fresh', '--json', '--', 'sleep', '600'], w2.opts);
  assert.equal(fresh.code, 0, fresh.stderr);
  const f = JSON.parse(fresh.stdout) as { session: string; worktree: string; notes: string[] };
  assert.match(f.worktree, /shop-5-2$/);
  assert.match(
    f.notes.join('\n'),
    /started anew; the last session of SHOP-5 .* whose work stays: its worktree .*shop-5 with/,
  );
  await lanes(['stop', f.session], w2.opts);
});

test('--resume after gc --worktrees removed the worktree: made again on its branch, its snapshot put back', async () => {
  const w = world();
  const dead = await diedWithWork(w, 'SHOP-6');
  const gc = await lanes(['gc', '--worktrees'], w.opts);
  assert.equal(gc.code, 0, gc.stderr);
  assert.equal(existsSync(dead.worktree), false, 'gc removed it (its work saved)');
  const resumed = await lanes(['new', 'SHOP-6', '--background', '--resume', '--json', '--', 'sleep', '600'], w.opts);
  assert.equal(resumed.code, 0, resumed.stderr);
  const r = JSON.parse(resumed.stdout) as { session: string; worktree: string; notes: string[] };
  assert.equal(r.worktree, dead.worktree);
  assert.match(r.notes.join('\n'), /made its worktree .* again on lanes\/shop-6/);
  assert.match(r.notes.join('\n'), /its uncommitted work put back from refs\/lanes\/snapshots\//);
  assert.equal(readFileSync(join(r.worktree, 'b.txt'), 'utf8'), 'b\n');
  assert.equal(git(r.worktree, 'log', '-1', '--format=%s'), 'work');
  await lanes(['stop', r.session], w.opts);
});

test('a finished session’s branch after gc: the report says finished, not landed; lanes land --ticket lands it from the main worktree', async () => {
  const w = world();
  const r = await lanes(
    [
      'new',
      'SHOP-7',
      '--background',
      '--json',
      '--',
      'sh',
      '-c',
      'echo x > x.txt && git add x.txt && git commit -qm finished',
    ],
    w.opts,
  );
  assert.equal(r.code, 0, r.stderr);
  const { session: id, worktree } = JSON.parse(r.stdout) as { session: string; worktree: string };
  for (let i = 0; i < 100; i++) {
    const all = JSON.parse((await lanes(['ls', '--all', '--json'], w.opts)).stdout) as { id: string; state: string }[];
    if (all.find((s) => s.id === id)?.state === 'ended') break;
    await new Promise((x) => setTimeout(x, 50));
  }
  assert.equal((await lanes(['gc', '--worktrees'], w.opts)).code, 0);
  assert.equal(existsSync(worktree), false);
  const before = JSON.parse((await lanes(['report', '--json'], w.opts)).stdout) as {
    finished: { ticket: string; branch: string; ahead: number; command: string }[];
    needsYou: { command: string }[];
  };
  assert.deepEqual(
    before.finished.map((f) => [f.ticket, f.branch, f.ahead, f.command]),
    [['SHOP-7', 'lanes/shop-7', 1, 'lanes land --ticket SHOP-7']],
  );
  assert.ok(before.needsYou.some((n) => n.command === 'lanes land --ticket SHOP-7'));
  // Typed as the report shows it, in a person's shell with no session.
  const landed = await lanes(['land', '--ticket', 'SHOP-7'], w.opts);
  assert.equal(landed.code, 0, landed.stderr);
  assert.equal(git(w.repo, 'log', '-1', '--format=%s', 'main'), 'finished');
  const after = JSON.parse((await lanes(['report', '--json'], w.opts)).stdout) as { finished: unknown[] };
  assert.deepEqual(after.finished, []);
  assert.equal(JSON.parse((await lanes(['ls', '--json'], w.opts)).stdout).length, 0, 'its own session ended');
});

test('lanes adopt S typed in a shell with no session: a session of that shell takes the work over', async () => {
  const w = world();
  const dead = await diedWithWork(w, 'SHOP-8');
  const out = execFileSync(
    'sh',
    ['-c', `"${process.execPath}" "${CLI}" adopt ${dead.id} && "${process.execPath}" "${CLI}" ls --json`],
    {
      env: w.env,
      cwd: w.repo,
      encoding: 'utf8',
    },
  );
  assert.match(out, /claimed ticket:SHOP-8 \(token 2\)/);
  assert.match(out, /adopted by session (s-\w+), owned by this shell: act as it with export LANES_SESSION=s-\w+/);
  assert.match(out, new RegExp(`now working in ${dead.worktree}`));
});

test('a resumed agent gets its conversation back: the predecessor bound to claude-code:<id>, resumed with --resume <id>', async () => {
  const w = world();
  const out = tmp('lanes-goon-out-');
  const env = { ...w.env, LANES_CLI: CLI, OUT: out, AGENT_ID: 'c0ffee00-0000-4000-8000-000000000001', LAND: '0' };
  const first = await lanes(
    ['new', 'SHOP-9', '--agent', 'claude-code', '--background', '--json', '--', join(FIXTURES, 'hooked-agent.sh')],
    {
      env,
      cwd: w.repo,
    },
  );
  const id = (JSON.parse(first.stdout) as { session: string }).session;
  for (let i = 0; i < 200 && !existsSync(join(out, 'done')); i++) await new Promise((x) => setTimeout(x, 50));
  await lanes(['stop', id], w.opts);
  const again = await lanes(
    [
      'new',
      'SHOP-9',
      '--agent',
      'claude-code',
      '--background',
      '--resume',
      '--json',
      '--',
      process.execPath,
      join(FIXTURES, 'task-agent.mjs'),
    ],
    { env: { ...env, TASK_NAME: 'resumed' }, cwd: w.repo },
  );
  assert.equal(again.code, 0, again.stderr);
  for (let i = 0; i < 200 && !readdirSync(out).some((f) => f.startsWith('resumed-')); i++)
    await new Promise((x) => setTimeout(x, 50));
  const got = JSON.parse(
    readFileSync(
      join(
        out,
        readdirSync(out).find((f) => f.startsWith('resumed-'))!,
      ),
      'utf8',
    ),
  ) as { argv: string[] };
  assert.deepEqual(got.argv.slice(-2), ['--resume', 'c0ffee00-0000-4000-8000-000000000001']);
  await lanes(['stop', (JSON.parse(again.stdout) as { session: string }).session], w.opts);
});
