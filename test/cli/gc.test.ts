import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gitRepo, lanes, lanesEnv, node } from '../helpers/env.js';
import type { Child } from '../helpers/env.js';

// lanes gc: dead sessions end the safe way (snapshot first, then end and release); a live one is
// never touched; ordinary commands reap a few in the background, `lanes hook` never does.

async function owner(env: Record<string, string>): Promise<{ child: Child; pid: string }> {
  const child = node('sleeper.mjs', [], { env });
  const [, pid] = (await child.waitFor(/ready (\d+)/)) as RegExpMatchArray;
  return { child, pid: pid! };
}

async function start(env: Record<string, string>, repo: string, pid: string, ticket: string): Promise<string> {
  const r = await lanes(['start', '--worktree', '--ticket', ticket, '--pid', pid, '--json'], { env, cwd: repo });
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout).id as string;
}

async function kill(o: { child: Child }): Promise<void> {
  o.child.proc.stdin.end();
  await o.child.exited;
}

const ls = async (env: Record<string, string>, repo: string) =>
  JSON.parse((await lanes(['ls', '--all', '--json'], { env, cwd: repo })).stdout) as {
    id: string;
    state: string;
    endReason: string | null;
    claims: unknown[];
  }[];

test('gc snapshots a dead session’s unsaved work, then ends it and releases its claims; a live session is untouched', async () => {
  const env = { ...lanesEnv(), LANES_GC_AFTER_MS: 'off' };
  const repo = gitRepo();
  const live = await owner(env);
  const doomed = await owner(env);
  const L = await start(env, repo, live.pid, 'T-LIVE');
  const D = await start(env, repo, doomed.pid, 'T-DEAD');
  for (const [id, path] of [
    [L, 'path:live/'],
    [D, 'path:dead/'],
  ])
    assert.equal((await lanes(['claim', path!, '--session', id!], { env, cwd: repo })).code, 0);
  const wt = (await ls(env, repo)).find((s) => s.id === D) as unknown as { worktree: string };
  writeFileSync(join(wt.worktree, 'unsaved.txt'), 'eight hours of work\n');
  await kill(doomed);

  const dry = await lanes(['gc', '--dry-run', '--json'], { env, cwd: repo });
  assert.equal(dry.code, 0, dry.stderr);
  const planned = JSON.parse(dry.stdout);
  assert.deepEqual(
    planned.items.map((i: { session: string; outcome: string }) => [i.session, i.outcome]),
    [[D, 'would-reap']],
  );
  assert.equal((await ls(env, repo)).find((s) => s.id === D)?.state, 'dead', 'a dry run changes nothing');

  const r = await lanes(['gc', '--json'], { env, cwd: repo });
  assert.equal(r.code, 0, r.stderr);
  const [item] = JSON.parse(r.stdout).items;
  assert.equal(item.session, D);
  assert.equal(item.outcome, 'reaped');
  assert.deepEqual(item.claims, ['path:dead/', 'ticket:T-DEAD'], 'its claim and the ticket it started with');
  assert.match(item.snapshot, /^refs\/lanes\/snapshots\//);
  const saved = execFileSync('git', ['show', `${item.snapshot}:unsaved.txt`], { cwd: repo }).toString();
  assert.equal(saved, 'eight hours of work\n', 'the unsaved work is in the snapshot');
  assert.equal(readFileSync(join(wt.worktree, 'unsaved.txt'), 'utf8'), 'eight hours of work\n', 'and still on disk');
  const after = await ls(env, repo);
  assert.equal(after.find((s) => s.id === D)?.state, 'ended');
  assert.match(after.find((s) => s.id === D)?.endReason ?? '', /reaped by lanes gc: pid \d+ has exited/);
  assert.equal(after.find((s) => s.id === L)?.state, 'live');
  assert.equal(after.find((s) => s.id === L)?.claims.length, 2, 'the live session keeps its claim and ticket');
  const again = await lanes(['gc'], { env, cwd: repo });
  assert.match(again.stdout, /no dead sessions on this host/);
  assert.equal((await lanes(['gc', '--limit', 'x'], { env, cwd: repo })).code, 2);
  await kill(live);
});

test('ordinary commands reap a few long-dead sessions in the background; lanes hook never does', async () => {
  const env = lanesEnv();
  const repo = gitRepo();
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    const o = await owner(env);
    ids.push(await start(env, repo, o.pid, `T-${i}`));
    await kill(o);
  }
  const ended = async () => (await ls(env, repo)).filter((s) => s.state === 'ended').length;
  // Within the grace period (default one hour): judged and recorded dead, not reaped.
  await lanes(['ls'], { env, cwd: repo });
  assert.equal(await ended(), 0);
  const now = { ...env, LANES_GC_AFTER_MS: '0' };
  const payload = JSON.stringify({
    session_id: '00000000-0000-4000-8000-000000000001',
    cwd: repo,
    hook_event_name: 'PreToolUse',
    tool_name: 'Edit',
    tool_input: { file_path: join(repo, 'README.md') },
  });
  await lanes(['hook', 'claude-code', 'pre-tool-use'], { env: now, cwd: repo, input: payload });
  assert.equal(await ended(), 0, 'the hook never reaps');
  // ls runs from a bundle of its own (dist/quick.cjs): the reaping is in it too.
  await lanes(['ls'], { env: now, cwd: repo });
  assert.equal(await ended(), 2, 'at most two per command');
  await lanes(['whoami'], { env: now, cwd: repo }); // fails (no session): no reaping either
  assert.equal(await ended(), 2);
  await lanes(['claims'], { env: now, cwd: repo });
  assert.equal(await ended(), 3);
  assert.match((await ls(env, repo)).find((s) => s.id === ids[0])?.endReason ?? '', /reaped in the background/);
});
