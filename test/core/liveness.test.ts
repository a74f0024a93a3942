import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { judgeOwner, judgeOwners } from '../../src/core/liveness.js';
import type { LivenessContext } from '../../src/core/liveness.js';
import { procPlatform } from '../../src/core/platform/proc.js';
import { psPlatform } from '../../src/core/platform/ps.js';
import type { ProcessPlatform } from '../../src/core/platform/types.js';
import { hostId, parseProcStat } from '../../src/core/process-identity.js';
import type { OwnerIdentity } from '../../src/core/process-identity.js';

// The same liveness rules over both ways of reading process facts: /proc (Linux) and `ps` (macOS,
// the BSDs; procps' ps stands in for the Mac's here, with an injected boot identity).
// On a Mac the ps path is the real one (and there is no /proc to test).
if (process.platform !== 'darwin') process.env['LANES_TEST_BOOT_ID'] = 'test-boot-for-the-ps-path';
const PLATFORMS: ProcessPlatform[] = [
  ...(process.platform === 'linux' ? [procPlatform('linux')] : []),
  psPlatform(process.platform === 'linux' ? 'darwin' : process.platform),
];

const here = (p: ProcessPlatform): LivenessContext => ({
  host: hostId(),
  bootId: p.bootId()!,
  probe: (pids) => p.facts(pids),
  nowMs: Date.now(),
  leaseMs: 60_000,
});
const identity = (p: ProcessPlatform, pid: number): OwnerIdentity | null => {
  const f = p.facts([pid]).get(pid);
  return f ? { host: hostId(), bootId: p.bootId()!, pid, startTime: f.startTime } : null;
};

test('parseProcStat counts fields after the LAST ")" (command names may contain ") ")', () => {
  const fields = Array.from({ length: 50 }, (_, i) => String(i + 3));
  fields[0] = 'S';
  fields[19] = '987654';
  const stat = parseProcStat(`1234 (evil) name ) x) ${fields.join(' ')}`);
  assert.deepEqual(stat, { state: 'S', startTime: '987654', ppid: 4, pgid: 5, comm: 'evil) name ) x' });
  assert.equal(parseProcStat('garbage'), null);
});

for (const p of PLATFORMS) {
  test(`[${p.kind}] a running process is live; the same pid with another start time is a reused pid`, () => {
    const me = identity(p, process.pid);
    assert.ok(me);
    assert.equal(judgeOwner(me, 0, here(p)).live, true);
    const reused = judgeOwner({ ...me, startTime: String(Number(me.startTime) - 1) }, 0, here(p));
    assert.equal(reused.live, false);
    assert.match(reused.why, /reused/);
  });

  test(`[${p.kind}] a different boot id means the host rebooted: dead`, () => {
    const me = identity(p, process.pid)!;
    const v = judgeOwner({ ...me, bootId: '00000000-0000-0000-0000-000000000000' }, 0, here(p));
    assert.deepEqual(v.live, false);
    assert.match(v.why, /rebooted/);
  });

  test(`[${p.kind}] an exited process is dead`, async () => {
    const child = spawn(process.execPath, ['-e', 'process.stdout.write("up"); setInterval(() => {}, 1000)'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    await once(child.stdout, 'data');
    const id = identity(p, child.pid!)!;
    assert.equal(judgeOwner(id, 0, here(p)).live, true);
    child.kill('SIGKILL');
    await once(child, 'exit');
    assert.equal(judgeOwner(id, 0, here(p)).live, false);
  });

  test(`[${p.kind}] a zombie (exited, not yet reaped, same pid and start time) is dead`, async () => {
    // A real zombie: python forks a child that exits at once; the parent never waits for it.
    const py = spawn(
      'python3',
      ['-c', 'import os,sys,time\npid=os.fork()\nif pid==0: os._exit(0)\nprint(pid, flush=True)\ntime.sleep(30)'],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const [line] = (await once(py.stdout, 'data')) as [Buffer];
    const pid = Number(line.toString().trim());
    let stat = p.facts([pid]).get(pid);
    for (let i = 0; i < 200 && stat?.state !== 'Z'; i++) {
      await new Promise((r) => setTimeout(r, 10));
      stat = p.facts([pid]).get(pid);
    }
    assert.equal(stat?.state, 'Z', 'the forked child should be a zombie');
    const v = judgeOwner({ host: hostId(), bootId: p.bootId()!, pid, startTime: stat!.startTime }, 0, here(p));
    py.kill('SIGKILL');
    assert.equal(v.live, false);
    assert.match(v.why, /zombie/);
  });

  test(`[${p.kind}] many owners are judged with one read of process facts`, () => {
    const me = identity(p, process.pid)!;
    const parent = identity(p, process.ppid)!;
    const reads: number[][] = [];
    const ctx = { ...here(p), probe: (pids: readonly number[]) => (reads.push([...pids]), p.facts(pids)) };
    const gone = { ...me, pid: 2 ** 22 + 7 };
    const verdicts = judgeOwners(
      [me, parent, gone, { ...me, host: 'elsewhere' }].map((owner) => ({ owner, lastSeenMs: 0 })),
      ctx,
    );
    assert.deepEqual(
      verdicts.map((v) => v.live),
      [true, true, false, false],
    );
    assert.equal(reads.length, 1, 'one probe for all local owners');
    assert.deepEqual(reads[0], [process.pid, process.ppid, gone.pid]);
  });
}

test('[ps] the start time has the resolution ps gives: whole seconds since the epoch, near now for a new process', async () => {
  const p = psPlatform('darwin');
  const child = spawn(process.execPath, ['-e', 'process.stdout.write("up"); setInterval(() => {}, 1000)'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  await once(child.stdout, 'data');
  const f = p.facts([child.pid!]).get(child.pid!)!;
  child.kill('SIGKILL');
  assert.match(f.startTime, /^\d+$/);
  assert.ok(Math.abs(Number(f.startTime) - Date.now() / 1000) < 30, `${f.startTime} is not about now`);
  assert.equal(f.name, 'node');
  assert.ok(f.command.includes('setInterval'), f.command);
});

test('another host is judged by its lease on the store clock', () => {
  const p = PLATFORMS[0]!;
  const other = { host: 'elsewhere', bootId: 'b', pid: 1, startTime: '1' };
  assert.equal(judgeOwner(other, 1000, { ...here(p), nowMs: 1000 + 59_999 }).live, true);
  const v = judgeOwner(other, 1000, { ...here(p), nowMs: 1000 + 60_000 });
  assert.equal(v.live, false);
  assert.match(v.why, /lease expired/);
});

test('out of sight is not dead: an absent owner that started before this pid namespace did is unknown, kept live', () => {
  const ctx: LivenessContext = {
    host: 'h',
    bootId: 'b',
    probe: () => new Map(),
    nowMs: 0,
    leaseMs: 60_000,
    visibleSince: '5000',
  };
  const owner = (startTime: string): OwnerIdentity => ({ host: 'h', bootId: 'b', pid: 4242, startTime });
  const [before, after] = judgeOwners(
    [
      { owner: owner('1200'), lastSeenMs: 0 },
      { owner: owner('6000'), lastSeenMs: 0 },
    ],
    ctx,
  );
  assert.equal(before!.live, true, 'started before the namespace: out of sight, never taken over');
  assert.match(before!.why, /^unknown: pid 4242 is out of sight/);
  assert.deepEqual(after, { live: false, why: 'pid 4242 has exited' }, 'started inside it: gone means dead');
  // Inside the namespace pid 4242 may be another process altogether: still out of sight, not reused.
  const other = { ...ctx, probe: () => new Map([[4242, { state: 'S', startTime: '7000' }]]) };
  assert.equal(judgeOwner(owner('1200'), 0, other).live, true);
  assert.equal(judgeOwner(owner('6000'), 0, other).why, 'pid 4242 now belongs to another process (pid reused)');
  // On the host (pid 1 started at boot) nothing changes.
  assert.equal(judgeOwner(owner('1200'), 0, { ...ctx, visibleSince: '25' }).live, false);
});
