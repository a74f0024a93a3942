import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gitRepo, lanes, lanesEnv } from '../helpers/env.js';
import { skipOrFail } from '../helpers/needs.js';
import { NEEDS_ROOT, fillDisk, smallTmpfs } from '../helpers/tmpfs.js';

// Issue 46, item 5: `lanes stop` on a full disk printed git's raw "index.lock write error. Out of
// diskspace" after it had already stopped the agent, and left the session open and dead with its
// claims without a word. Now it saves first and stops nothing it could not save, saying so; with
// --no-save it stops the agent and says where the work stays.

const state = async (opts: { env: Record<string, string>; cwd: string }, id: string) =>
  (JSON.parse((await lanes(['ls', '--all', '--json'], opts)).stdout) as { id: string; state: string }[]).find(
    (s) => s.id === id,
  )?.state;

test('lanes stop on a full disk: the agent is not stopped before its work is saved, and lanes says why', async (t) => {
  const mnt = smallTmpfs('4m');
  if (!mnt) return skipOrFail(t, 'root and mount', NEEDS_ROOT);
  // The repository and its worktrees on the small disk; the store on an ordinary one.
  const repo = join(mnt, 'shop');
  mkdirSync(repo);
  gitRepo(repo);
  const env = lanesEnv();
  const opts = { env, cwd: repo };
  const started = await lanes(['new', 'T-1', '--background', '--json', '--', 'sleep', '600'], opts);
  assert.equal(started.code, 0, started.stderr);
  const { session: id, worktree } = JSON.parse(started.stdout) as { session: string; worktree: string };
  writeFileSync(join(worktree, 'work.txt'), 'an hour of work\n');
  const free = fillDisk(mnt);

  const refused = await lanes(['stop', id], opts);
  assert.equal(refused.code, 1, refused.stderr);
  assert.match(
    refused.stderr,
    /could not save the work of T-1, so its agent was not stopped: the disk holding .* is full/,
  );
  assert.match(refused.stderr, /--no-save/);
  assert.doesNotMatch(refused.stderr, /index\.lock|Out of diskspace/, 'no raw git words');
  assert.equal(await state(opts, id), 'live', 'the agent still runs');

  free();
  const stopped = await lanes(['stop', id], opts);
  assert.equal(stopped.code, 0, stopped.stderr);
  assert.match(stopped.stdout, new RegExp(`^T-1 stopped: .*; work saved in ${id}/[0-9]+`));
  assert.equal(await state(opts, id), 'ended');

  // --no-save on a full disk: stopped, ended, and the files stay where they are.
  const second = JSON.parse(
    (await lanes(['new', 'T-2', '--background', '--json', '--', 'sleep', '600'], opts)).stdout,
  ) as { session: string; worktree: string };
  writeFileSync(join(second.worktree, 'work.txt'), 'more work\n');
  const again = fillDisk(mnt);
  const forced = await lanes(['stop', second.session, '--no-save'], opts);
  again();
  assert.equal(forced.code, 0, forced.stderr);
  assert.equal(await state(opts, second.session), 'ended');
});
