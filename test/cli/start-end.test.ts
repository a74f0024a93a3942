import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { lanes, lanesChild, lanesEnv, gitRepo } from '../helpers/env.js';

// `lanes start -- CMD` ends its session through the one end path (lanes end, the session-end hook
// and doctor --fix use it too): uncommitted work is snapshotted before the session ends.

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' });

function snapshotsOf(repo: string): string[] {
  return git(repo, 'for-each-ref', '--format=%(refname)', 'refs/lanes/snapshots/').split('\n').filter(Boolean);
}

test("start --worktree -- CMD: the command's uncommitted change is snapshotted when it exits", async () => {
  const env = lanesEnv();
  const repo = gitRepo();
  const r = await lanes(
    ['start', '--worktree', '--label', 'wrapped', '--', 'sh', '-c', 'echo x >> a.txt; echo "$LANES_SESSION"'],
    { env, cwd: repo },
  );
  assert.equal(r.code, 0, r.stderr);
  const id = r.stdout.trim();
  const refs = snapshotsOf(repo);
  assert.equal(refs.length, 1, `one snapshot ref, got ${refs.join(', ')}`);
  assert.match(refs[0]!, new RegExp(`^refs/lanes/snapshots/${id}/1$`));
  assert.equal(git(repo, 'show', `${refs[0]}:a.txt`), 'x\n', "the snapshot holds the command's change");
  const [s] = JSON.parse((await lanes(['ls', '--all', '--json'], { env })).stdout);
  assert.equal(s.state, 'ended');
  assert.equal(s.endReason, 'command exited with code 0');
  assert.equal(readFileSync(`${s.worktree}/a.txt`, 'utf8'), 'x\n', 'the work itself stays in the worktree');
});

// Bounded: a lanes that stopped forwarding the signal would leave `sleep 60` running and the wait hanging.
test(
  'start --worktree -- CMD killed by a signal forwarded from lanes: snapshot, then end',
  { timeout: 30_000 },
  async () => {
    const env = lanesEnv();
    const repo = gitRepo();
    const child = lanesChild(
      ['start', '--worktree', '--label', 'killed', '--', 'sh', '-c', 'echo y > b.txt; echo ready; exec sleep 60'],
      { env, cwd: repo },
    );
    await child.waitFor(/ready/);
    child.proc.kill('SIGTERM');
    const exit = await child.exited;
    assert.equal(exit.code, 143, child.stderr);
    const refs = snapshotsOf(repo);
    assert.equal(refs.length, 1, `one snapshot ref, got ${refs.join(', ')}`);
    assert.equal(git(repo, 'show', `${refs[0]}:b.txt`), 'y\n');
    const [s] = JSON.parse((await lanes(['ls', '--all', '--json'], { env })).stdout);
    assert.equal(s.state, 'ended');
    assert.equal(s.endReason, 'command killed by SIGTERM');
  },
);

test('start -- CMD with nothing changed ends without a snapshot ref', async () => {
  const env = lanesEnv();
  const repo = gitRepo();
  const r = await lanes(['start', '--worktree', '--', 'true'], { env, cwd: repo });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(snapshotsOf(repo), []);
  assert.equal(existsSync(repo), true);
});

test("start --worktree -- CMD: when the snapshot fails, CMD's exit code still comes through and the session stays, saying so", async () => {
  const env = lanesEnv();
  const repo = gitRepo();
  // The command breaks its worktree's link to the repository: git can no longer read it there.
  const r = await lanes(['start', '--worktree', '--', 'sh', '-c', 'echo y > b.txt; rm .git; exit 3'], {
    env,
    cwd: repo,
  });
  assert.equal(r.code, 3, r.stderr);
  assert.match(r.stderr, /session s-[0-9a-z]+ was not ended \(.*\); its work is untouched: end it with `lanes end s-/);
  const [s] = JSON.parse((await lanes(['ls', '--json'], { env })).stdout);
  assert.equal(s.state, 'dead', 'not ended: its owner (lanes) exited, so doctor --fix will see it');
  assert.equal(readFileSync(`${s.worktree}/b.txt`, 'utf8'), 'y\n');
});

test('state of a session the store never knew is refused (exit 1, nothing stored); an ended one is read and cleared, never written', async () => {
  const env = lanesEnv();
  for (const args of [['set', 'k', '1'], ['get'], ['get', 'k'], ['clear'], ['clear', 'k']]) {
    const r = await lanes(['state', ...args, '--session', 's-0000000000'], { env });
    assert.equal(r.code, 1, `state ${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, /session s-0000000000 is not known to the store/);
  }
  const status = JSON.parse((await lanes(['store', 'status', '--json'], { env })).stdout);
  assert.equal(status.counts.stateRecords, 0, 'nothing was stored for the unknown session');
  const id = (await lanes(['start', '--pid', String(process.pid)], { env })).stdout.trim();
  assert.equal((await lanes(['state', 'set', 'k', '1', '--session', id], { env })).code, 0);
  assert.equal((await lanes(['end', '--force', id], { env })).code, 0);
  const set = await lanes(['state', 'set', 'k', '2', '--session', id], { env });
  assert.equal(set.code, 1, set.stderr);
  assert.match(set.stderr, new RegExp(`session ${id} has ended`));
  assert.equal(
    (await lanes(['state', 'get', 'k', '--session', id], { env })).stdout.trim(),
    '1',
    'readable, unchanged',
  );
  assert.equal((await lanes(['state', 'clear', '--session', id], { env })).code, 0, 'clearing it is allowed');
  assert.equal((await lanes(['state', 'get', '--session', id], { env })).stdout.trim(), '{}');
});
