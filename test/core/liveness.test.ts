import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { judgeOwner } from '../../src/core/liveness.js';
import type { LivenessContext } from '../../src/core/liveness.js';
import { bootId, hostId, identityOf, parseProcStat, readProcStat } from '../../src/core/process-identity.js';

const here = (): LivenessContext => ({
  host: hostId(),
  bootId: bootId(),
  probe: readProcStat,
  nowMs: Date.now(),
  leaseMs: 60_000,
});

test('parseProcStat counts fields after the LAST ")" (command names may contain ") ")', () => {
  const fields = Array.from({ length: 50 }, (_, i) => String(i + 3));
  fields[0] = 'S';
  fields[19] = '987654';
  const stat = parseProcStat(`1234 (evil) name ) x) ${fields.join(' ')}`);
  assert.deepEqual(stat, { state: 'S', startTime: '987654', ppid: 4, comm: 'evil) name ) x' });
  assert.equal(parseProcStat('garbage'), null);
});

test('a running process is live; the same pid with another start time is a reused pid', () => {
  const me = identityOf(process.pid);
  assert.ok(me);
  assert.equal(judgeOwner(me, 0, here()).live, true);
  const reused = judgeOwner({ ...me, startTime: String(Number(me.startTime) - 1) }, 0, here());
  assert.equal(reused.live, false);
  assert.match(reused.why, /reused/);
});

test('a different boot id means the host rebooted: dead', () => {
  const me = identityOf(process.pid)!;
  const v = judgeOwner({ ...me, bootId: '00000000-0000-0000-0000-000000000000' }, 0, here());
  assert.deepEqual(v.live, false);
  assert.match(v.why, /rebooted/);
});

test('an exited process is dead', async () => {
  const child = spawn(process.execPath, ['-e', 'process.stdout.write("up"); setInterval(() => {}, 1000)'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  await once(child.stdout, 'data');
  const id = identityOf(child.pid!)!;
  assert.equal(judgeOwner(id, 0, here()).live, true);
  child.kill('SIGKILL');
  await once(child, 'exit');
  assert.equal(judgeOwner(id, 0, here()).live, false);
});

test('a zombie (exited, not yet reaped, same pid and start time) is dead', async () => {
  // A real zombie: python forks a child that exits at once; the parent never waits for it.
  const py = spawn(
    'python3',
    ['-c', 'import os,sys,time\npid=os.fork()\nif pid==0: os._exit(0)\nprint(pid, flush=True)\ntime.sleep(30)'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const [line] = (await once(py.stdout, 'data')) as [Buffer];
  const pid = Number(line.toString().trim());
  let stat = readProcStat(pid);
  for (let i = 0; i < 200 && stat?.state !== 'Z'; i++) {
    await new Promise((r) => setTimeout(r, 10));
    stat = readProcStat(pid);
  }
  assert.equal(stat?.state, 'Z', 'the forked child should be a zombie');
  const v = judgeOwner({ host: hostId(), bootId: bootId(), pid, startTime: stat!.startTime }, 0, here());
  py.kill('SIGKILL');
  assert.equal(v.live, false);
  assert.match(v.why, /zombie/);
});

test('another host is judged by its lease on the store clock', () => {
  const other = { host: 'elsewhere', bootId: 'b', pid: 1, startTime: '1' };
  assert.equal(judgeOwner(other, 1000, { ...here(), nowMs: 1000 + 59_999 }).live, true);
  const v = judgeOwner(other, 1000, { ...here(), nowMs: 1000 + 60_000 });
  assert.equal(v.live, false);
  assert.match(v.why, /lease expired/);
});
