// The dashboard's actions through the real server: each calls the library as the CLI does, asks
// nothing of a live session's work, and refuses what would harm it.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gitRepo, lanes, lanesEnv, node } from '../helpers/env.js';
import { http, startUi } from '../helpers/ui.js';
import type { RunningUi } from '../helpers/ui.js';

const env = lanesEnv();
const repo = gitRepo();

async function session(args: string[]) {
  const owner = node('sleeper.mjs', [], { env });
  const [, pid] = (await owner.waitFor(/ready (\d+)/)) as RegExpMatchArray;
  const r = await lanes(['start', '--pid', pid!, '--json', ...args], { env, cwd: repo });
  assert.equal(r.code, 0, r.stderr);
  return { ...(JSON.parse(r.stdout) as { id: string; worktree: string }), proc: owner };
}

function act(ui: RunningUi, action: string, body: Record<string, string>) {
  return http(ui.port, `/api/actions/${action}`, {
    method: 'POST',
    headers: { 'x-lanes-token': ui.token, origin: ui.origin, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

test('snapshot any session; end, adopt or release only a dead one; the CLI sees the result', async () => {
  const live = await session(['--worktree', '--label', 'live']);
  const dying = await session(['--worktree', '--label', 'dying']);
  const dying2 = await session(['--worktree', '--label', 'dying2']);
  await lanes(['claim', 'path:src/x/', '--session', dying.id], { env, cwd: repo });
  await lanes(['claim', 'path:src/y/', '--session', dying2.id], { env, cwd: repo });
  writeFileSync(join(live.worktree, 'live-wip.txt'), 'live work\n');
  writeFileSync(join(dying.worktree, 'dying-wip.txt'), 'unsaved\n');
  const ui = await startUi(env, repo);
  try {
    const snap = await act(ui, 'snapshot', { session: live.id });
    assert.equal(snap.status, 200, snap.body);
    assert.match(snap.body, /: saved refs\/lanes\/snapshots\/.* \(1 changed file\)/);
    assert.equal(
      execFileSync('git', ['status', '--porcelain'], { cwd: live.worktree, encoding: 'utf8' }),
      '?? live-wip.txt\n',
    );
    for (const action of ['end', 'adopt', 'release']) {
      const r = await act(ui, action, { session: live.id, into: dying.id });
      assert.equal(r.status, 409, `${action} of a live session: ${r.body}`);
      assert.match(r.body, /E_CLAIM_HELD/);
    }
    assert.match((await lanes(['ls'], { env, cwd: repo })).stdout, new RegExp(`${live.id}\\s+live`));
    for (const { proc: owner } of [dying, dying2]) {
      owner.proc.kill('SIGKILL');
      await owner.exited;
    }
    const intoDead = await act(ui, 'adopt', { session: dying2.id, into: dying.id });
    assert.equal(intoDead.status, 400, 'adopting into a dead session');
    const released = await act(ui, 'release', { session: dying2.id });
    assert.equal(released.status, 200, released.body);
    assert.match(released.body, /released 1 claim\(s\)/);
    const ended = await act(ui, 'end', { session: dying.id });
    assert.equal(ended.status, 200, ended.body);
    assert.match(ended.body, /saved its work as refs\/lanes\/snapshots\/.*; ended .*released 1 claim/);
    const all = JSON.parse((await lanes(['ls', '--all', '--json'], { env, cwd: repo })).stdout) as {
      id: string;
      state: string;
      endReason: string | null;
    }[];
    assert.equal(all.find((s) => s.id === dying.id)?.state, 'ended');
    const snapshots = (await lanes(['snapshots', '--session', dying.id], { env, cwd: repo })).stdout;
    assert.match(snapshots, new RegExp(`${dying.id}/1`));
    const adopted = await act(ui, 'adopt', { session: dying2.id, into: live.id });
    assert.equal(adopted.status, 200, adopted.body);
    const who = JSON.parse((await lanes(['ls', '--json'], { env, cwd: repo })).stdout) as {
      id: string;
      worktree: string;
    }[];
    assert.equal(
      who.find((s) => s.id === live.id)?.worktree,
      dying2.worktree,
      'the live session took the worktree over',
    );
    const bad = await act(ui, 'end', {});
    assert.equal(bad.status, 400);
    assert.match(bad.body, /the body needs \{\\"session\\": \\"ID\\"\}/);
  } finally {
    await ui.stop();
    live.proc.proc.stdin.end();
  }
});

test('Ready puts a session with committed work in the landing queue, as lanes ready does; one without a ticket is refused', async () => {
  const s = await session(['--worktree', '--ticket', 'T-UI']);
  const plain = await session(['--label', 'no-ticket']);
  writeFileSync(join(s.worktree, 'ui.txt'), 'work\n');
  execFileSync('git', ['add', 'ui.txt'], { cwd: s.worktree });
  execFileSync('git', ['commit', '-q', '-m', 'UI: work'], { cwd: s.worktree });
  const ui = await startUi(env, repo);
  try {
    const r = await act(ui, 'ready', { session: s.id });
    assert.equal(r.status, 200, r.body);
    assert.match(r.body, /\(T-UI\) is ready to land: lanes\/t-ui at [0-9a-f]{10}, number 1 in line/);
    const q = JSON.parse((await lanes(['queue', '--json'], { env, cwd: repo })).stdout) as {
      ready: { session: string; ticket: string }[];
    };
    assert.deepEqual(
      q.ready.map((x) => [x.session, x.ticket]),
      [[s.id, 'T-UI']],
    );
    const none = await act(ui, 'ready', { session: plain.id });
    assert.equal(none.status, 400, none.body);
    assert.match(none.body, /lanes lands only under a ticket claim/);
  } finally {
    await ui.stop();
    s.proc.proc.stdin.end();
    plain.proc.proc.stdin.end();
  }
});
