import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openLanes } from '../../src/index.js';
import type { SeatLease } from '../../src/index.js';
import { watchRecord } from '../../src/cli/seat-record.js';
import { codexRollout } from '../helpers/codex-day.js';
import { FIXTURES, lanesEnv, tmp } from '../helpers/env.js';

// lanes' wrapper looks for the conversation an agent on a seat began when no hook named it (Codex
// 0.171 in `codex exec` without lanes' hooks), to resume it on the next seat: the newest begun in
// the run's directory on the seat's login. Two sessions in one directory (a shared worktree) on
// logins they both use would each find the other's: then the record is nobody's guess.

const ID = '019ae2a1-5f6d-7b20-9c31-4d5e6f708192';
const META = readFileSync(join(FIXTURES, 'codex-rollout', 'session-meta-0.171.0.jsonl'), 'utf8').trimEnd();

async function world() {
  const home = tmp('lanes-seat-record-');
  const shared = realpathSync(tmp('lanes-shared-worktree-'));
  const elsewhere = tmp('lanes-other-worktree-');
  // A Codex login holding one conversation begun now in the shared directory.
  const login = join(home, 'codex-a');
  const { day, name } = codexRollout(join(login, 'sessions'), ID);
  mkdirSync(day, { recursive: true });
  const task = JSON.stringify({
    timestamp: new Date().toISOString(),
    type: 'event_msg',
    payload: { type: 'task_started' },
  });
  writeFileSync(join(day, name), `${META.replaceAll('"/tmp/lanes-repo-Qr7tMb"', JSON.stringify(shared))}\n${task}\n`);
  const env = lanesEnv(join(home, 'lanes'));
  const open = (cwd: string) => openLanes({ store: join(home, 'lanes.db'), env, cwd, notice: false, session: null });
  const lanes = await open(shared);
  const me = (await lanes.sessions.start({ pid: process.pid, label: 'me' })).id;
  const lease = {
    seat: { name: 'a', agent: 'codex', env: { CODEX_HOME: login } },
    slot: 1,
    token: 1,
  } as unknown as SeatLease;
  // Begun a moment before the conversation's record was written.
  const watch = (known: string | null = null) => watchRecord(lanes, me, lease, known, tmp(), shared);
  return { lanes, open, shared, elsewhere, watch };
}

test('alone in its directory, the run takes the conversation its login recorded there', async () => {
  const w = await world();
  const other = await w.open(w.elsewhere);
  await other.sessions.start({ pid: process.pid, label: 'elsewhere' });
  const watch = w.watch();
  await watch.look();
  assert.equal(watch.conversation, ID);
  assert.equal(watch.notGuessed, null);
  await other.close();
  await w.lanes.close();
});

test("another session seen in the same directory: the record is nobody's for the rest of the run, and why is kept", async () => {
  const w = await world();
  const twin = await w.open(w.shared);
  // Its owner: a process that is not this run's (this test's parent stands in for the other wrapper).
  const b = (await twin.sessions.start({ pid: process.ppid, label: 'twin' })).id;
  const watch = w.watch();
  await watch.look();
  assert.equal(watch.conversation, null);
  assert.equal(watch.notGuessed, `session ${b} works in ${w.shared} too`);
  // A conversation the run resumes (named by a hook or carried from the last seat) is not a guess.
  const resumed = w.watch(ID);
  await resumed.look();
  assert.equal(resumed.conversation, ID);
  // The other session ending does not make what it may have begun ours.
  await twin.sessions.end(b, 'done');
  await watch.look();
  assert.equal(watch.conversation, null);
  assert.equal(watch.notGuessed, `session ${b} works in ${w.shared} too`);
  await twin.close();
  await w.lanes.close();
});

test("the run's own agent (a session its hooks registered, owned by a process of this run) and a session on another host are not others", async (t) => {
  const w = await world();
  const agent = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  t.after(() => agent.kill());
  const hooks = await w.open(w.shared);
  await hooks.sessions.start({ id: `codex:${ID}`, agent: 'codex', pid: agent.pid!, label: 'its hooks' });
  process.env['LANES_HOST_ID'] = 'another-host';
  try {
    await hooks.sessions.start({ pid: process.pid, label: 'same path, another host' });
  } finally {
    delete process.env['LANES_HOST_ID'];
  }
  const watch = w.watch();
  await watch.look();
  assert.equal(watch.notGuessed, null);
  assert.equal(watch.conversation, ID);
  await hooks.close();
  await w.lanes.close();
});
