// The library members the dashboard needed (issue 11, item 4): where each session's work stands in
// git (sessions.progress), and releasing a dead session's claims while refusing a live one's
// (claims.releaseDead). Real git, a real store, real owner processes.
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isLanesError, openLanes } from '../../src/index.js';
import { gitRepo, lanesEnv, node, tmp } from '../helpers/env.js';

async function world() {
  const env = lanesEnv();
  const repo = gitRepo();
  const lanes = await openLanes({ env, cwd: repo, session: null, notice: false });
  const owner = node('sleeper.mjs', [], { env });
  const [, pid] = (await owner.waitFor(/ready (\d+)/)) as RegExpMatchArray;
  return { env, repo, lanes, owner, pid: Number(pid) };
}

test('progress: branch, uncommitted files and commits ahead of main, one entry per session with a worktree here', async () => {
  const { lanes, owner, pid } = await world();
  try {
    const wt = await lanes.createWorktree({ label: 'feature' });
    const s = await lanes.sessions.start({ pid, worktree: wt.path, label: 'feature' });
    const plain = await lanes.sessions.start({ pid, label: 'at the root' });
    const git = (...args: string[]) => execFileSync('git', args, { cwd: wt.path, stdio: 'pipe' });
    writeFileSync(join(wt.path, 'one.txt'), '1\n');
    git('add', 'one.txt');
    git('commit', '-qm', 'one');
    writeFileSync(join(wt.path, 'two.txt'), '2\n');
    git('add', 'two.txt');
    git('commit', '-qm', 'two');
    writeFileSync(join(wt.path, 'wip.txt'), 'unsaved\n');
    writeFileSync(join(wt.path, 'README.md'), 'changed\n');
    const outside = await lanes.sessions.start({ pid, label: 'elsewhere' });
    const list = await lanes.sessions.progress([s.id, plain.id, outside.id, 's-unknown00']);
    const mine = list.find((p) => p.session === s.id);
    assert.deepEqual(
      { branch: mine?.branch, uncommitted: mine?.uncommitted, ahead: mine?.ahead, target: mine?.target },
      { branch: wt.branch, uncommitted: 2, ahead: 2, target: 'main' },
    );
    const root = list.find((p) => p.session === plain.id);
    assert.deepEqual([root?.branch, root?.uncommitted, root?.ahead], ['main', 0, 0]);
    assert.equal(list.length, 3, 'an unknown session has no entry');
  } finally {
    owner.proc.stdin.end();
    await lanes.close();
  }
});

test('progress: a session whose worktree is gone, or outside any repository, has no entry', async () => {
  const { env, lanes, owner, pid } = await world();
  try {
    const nowhere = await openLanes({ env, cwd: tmp('lanes-nowhere-'), session: null, notice: false });
    const s = await nowhere.sessions.start({ pid, label: 'no repo' });
    await nowhere.close();
    const wt = await lanes.createWorktree({ label: 'gone' });
    const gone = await lanes.sessions.start({ pid, worktree: wt.path });
    rmSync(wt.path, { recursive: true, force: true });
    assert.deepEqual(await lanes.sessions.progress([s.id, gone.id]), []);
  } finally {
    owner.proc.stdin.end();
    await lanes.close();
  }
});

test("releaseDead releases every claim of a dead session and refuses a live one's (E_CLAIM_HELD)", async () => {
  const { env, repo, lanes, owner, pid } = await world();
  const doomed = node('sleeper.mjs', [], { env });
  const [, doomedPid] = (await doomed.waitFor(/ready (\d+)/)) as RegExpMatchArray;
  try {
    const live = await lanes.sessions.start({ pid, label: 'live' });
    const dead = await lanes.sessions.start({ pid: Number(doomedPid), label: 'dies' });
    const asLive = await openLanes({ env, cwd: repo, session: live.id, notice: false });
    const asDead = await openLanes({ env, cwd: repo, session: dead.id, notice: false });
    await asLive.claims.claim(['path:src/a/']);
    await asDead.claims.claim(['path:src/b/', 'ticket:T-9']);
    await asLive.close();
    await asDead.close();
    await assert.rejects(
      lanes.claims.releaseDead(live.id),
      (e: unknown) => isLanesError(e, 'E_CLAIM_HELD') && /is live; its claims are its own/.test(e.message),
    );
    assert.equal((await lanes.sessions.get(live.id)).claims.length, 1, 'nothing of the live one released');
    doomed.proc.kill('SIGKILL');
    await doomed.exited;
    const released = await lanes.claims.releaseDead(dead.id);
    assert.deepEqual(released.map((c) => `${c.kind}:${c.name}`).sort(), ['path:src/b/', 'ticket:T-9']);
    assert.equal((await lanes.sessions.get(dead.id)).claims.length, 0);
    assert.deepEqual(await lanes.claims.releaseDead(dead.id), [], 'again: nothing left');
    await assert.rejects(lanes.claims.releaseDead('s-unknown00'), (e: unknown) => isLanesError(e, 'E_UNKNOWN_SESSION'));
  } finally {
    owner.proc.stdin.end();
    await lanes.close();
  }
});
