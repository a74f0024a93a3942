import { test } from 'node:test';
import { NEEDS_ROOT, smallTmpfs } from '../helpers/tmpfs.js';
import { skipOrFail } from '../helpers/needs.js';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
  readdirSync,
  copyFileSync,
  utimesSync,
} from 'node:fs';
import { join } from 'node:path';
import { lanes, lanesEnv, tmp } from '../helpers/env.js';

async function twoSessions(env: Record<string, string>) {
  const start = async (label: string) =>
    (await lanes(['start', '--label', label, '--pid', String(process.pid)], { env })).stdout.trim();
  const a = await start('a');
  const b = await start('b');
  return { a, b, as: (id: string) => ({ env: { ...env, LANES_SESSION: id } }) };
}

const WEIRD = Buffer.concat([
  Buffer.from('{"who":"ä","emoji":"😀🧪","rtl":"שלום עולם مرحبا"}\n', 'utf8'),
  Buffer.from([0, 0, 1, 255, 254, 13, 10]),
  Buffer.from('\u202Eevil\u202C tail', 'utf8'),
]);

test('put/get round-trips any bytes exactly; files 0600 in a 0700 per-session directory', async () => {
  const home = tmp();
  const env = lanesEnv(home);
  const { a, as } = await twoSessions(env);
  const put = await lanes(['handoff', 'put', 'meta.json', '--json'], { ...as(a), input: WEIRD });
  assert.equal(put.code, 0, put.stderr);
  const info = JSON.parse(put.stdout);
  assert.equal(info.seq, 1);
  assert.equal(info.size, WEIRD.length);
  assert.equal(statSync(info.path).mode & 0o777, 0o600);
  assert.equal(statSync(join(info.path, '..')).mode & 0o777, 0o700);
  const got = await lanes(['handoff', 'get', 'meta.json'], as(a));
  assert.equal(got.code, 0, got.stderr);
  assert.ok(got.stdoutBytes.equals(WEIRD), 'byte-exact');
  const again = JSON.parse((await lanes(['handoff', 'put', 'meta.json', '--json'], { ...as(a), input: 'v2' })).stdout);
  assert.equal(again.seq, 2);
  assert.deepEqual(readdirSync(join(info.path, '..')), ['meta.json'], 'no temp files left behind');
  const file = join(tmp(), 'in.bin');
  writeFileSync(file, WEIRD);
  assert.equal((await lanes(['handoff', 'put', 'from-file', file], as(a))).code, 0);
  assert.ok((await lanes(['handoff', 'get', 'from-file'], as(a))).stdoutBytes.equals(WEIRD));
  const empty = await lanes(['handoff', 'put', 'empty'], { ...as(a), input: '' });
  assert.equal(empty.code, 0);
  assert.equal((await lanes(['handoff', 'get', 'empty'], as(a))).stdoutBytes.length, 0);
});

test("sessions never read each other's handoffs silently: wrong owner exit 4, --from reads the named writer", async () => {
  const env = lanesEnv();
  const { a, b, as } = await twoSessions(env);
  const put = JSON.parse(
    (await lanes(['handoff', 'put', 'meta.json', '--json'], { ...as(a), input: 'A data' })).stdout,
  );
  // b's own handoff does not exist: exit 1, not A's data.
  const missing = await lanes(['handoff', 'get', 'meta.json'], as(b));
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /no handoff meta.json from session/);
  // Reading A's on purpose works, and proves it came from A.
  const from = await lanes(['handoff', 'get', 'meta.json', '--from', a], as(b));
  assert.equal(from.stdout, 'A data');
  // A's file planted in B's directory (a shared or copied path): wrong owner, exit 4, naming both.
  await lanes(['handoff', 'put', 'x', '--json'], { ...as(b), input: 'b' });
  const bDir = join(put.path, '..', '..', b);
  copyFileSync(put.path, join(bDir, 'meta.json'));
  const wrong = await lanes(['handoff', 'get', 'meta.json'], as(b));
  assert.equal(wrong.code, 4);
  assert.match(wrong.stderr, new RegExp(`written by session ${a} .*not by ${b}`));
  assert.equal(wrong.stdout, '', 'nothing of the foreign data is printed');
});

test('a torn or corrupt handoff exits 4; a symlink is refused; bad names exit 2', async () => {
  const env = lanesEnv();
  const { a, as } = await twoSessions(env);
  const put = JSON.parse(
    (await lanes(['handoff', 'put', 'plan.md', '--json'], { ...as(a), input: 'the plan, complete' })).stdout,
  );
  const full = readFileSync(put.path);
  writeFileSync(put.path, full.subarray(0, full.length - 4));
  const torn = await lanes(['handoff', 'get', 'plan.md'], as(a));
  assert.equal(torn.code, 4);
  assert.match(torn.stderr, /torn or corrupt/);
  writeFileSync(put.path, Buffer.concat([full.subarray(0, full.length - 1), Buffer.from('X')]));
  assert.equal((await lanes(['handoff', 'get', 'plan.md'], as(a))).code, 4);
  writeFileSync(put.path, '{"session":"x"}');
  assert.equal((await lanes(['handoff', 'get', 'plan.md'], as(a))).code, 4);
  // A symlink planted at the target: neither read through nor written through.
  const victim = join(tmp(), 'victim');
  writeFileSync(victim, 'precious');
  rmSync(put.path);
  symlinkSync(victim, put.path);
  const readLink = await lanes(['handoff', 'get', 'plan.md'], as(a));
  assert.equal(readLink.code, 1);
  assert.match(readLink.stderr, /symlink/);
  const writeLink = await lanes(['handoff', 'put', 'plan.md'], { ...as(a), input: 'overwrite?' });
  assert.equal(writeLink.code, 1);
  assert.match(writeLink.stderr, /symlink/);
  assert.equal(readFileSync(victim, 'utf8'), 'precious');
  for (const name of ['../escape', '.hidden', 'a/b', '', 'x'.repeat(129), 'ü', '😀', '/abs']) {
    const r = await lanes(['handoff', 'put', name], { ...as(a), input: 'x' });
    assert.equal(r.code, 2, `${JSON.stringify(name)}: ${r.stderr}`);
    const p = await lanes(['path', name], as(a));
    assert.equal(p.code, 2, `path ${JSON.stringify(name)}`);
  }
});

test('a payload over 16 MiB is refused with nothing written; path gives a private per-session file path', async () => {
  const env = lanesEnv();
  const { a, b, as } = await twoSessions(env);
  const big = await lanes(['handoff', 'put', 'big'], { ...as(a), input: Buffer.alloc(16 * 1024 * 1024 + 1, 97) });
  assert.equal(big.code, 1);
  assert.match(big.stderr, /16 MiB/);
  assert.equal((await lanes(['handoff', 'get', 'big'], as(a))).code, 1, 'nothing was written');
  const pa = (await lanes(['path', 'meta.json'], as(a))).stdout.trim();
  const pb = (await lanes(['path', 'meta.json'], as(b))).stdout.trim();
  assert.notEqual(pa, pb);
  assert.ok(pa.endsWith(`${a}/meta.json`));
  assert.equal(statSync(join(pa, '..')).mode & 0o777, 0o700);
});

test('XDG_RUNTIME_DIR is used when set', async () => {
  const env = lanesEnv();
  const run = tmp('lanes-xdg-');
  const { a } = await twoSessions(env);
  const p = (await lanes(['path', 'x'], { env: { ...env, LANES_SESSION: a, XDG_RUNTIME_DIR: run } })).stdout.trim();
  assert.equal(p, join(run, 'lanes', a, 'x'));
});

test('a full disk: put fails with a clear error and the previous version survives', async (t) => {
  const mnt = smallTmpfs('256k');
  if (!mnt) return skipOrFail(t, 'root and mount', NEEDS_ROOT);
  const env = { ...lanesEnv(), XDG_RUNTIME_DIR: mnt };
  const { a, as } = await twoSessions(env);
  const ctx = { env: { ...as(a).env, XDG_RUNTIME_DIR: mnt } };
  assert.equal((await lanes(['handoff', 'put', 'state'], { ...ctx, input: 'version one' })).code, 0);
  const r = await lanes(['handoff', 'put', 'state'], { ...ctx, input: Buffer.alloc(400 * 1024, 98) });
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /disk is full/);
  assert.equal((await lanes(['handoff', 'get', 'state'], ctx)).stdout, 'version one');
  assert.deepEqual(readdirSync(join(mnt, 'lanes', a)), ['state'], 'the temp file was removed');
});

test("a session directory replaced by a symlink (someone else's directory) is refused", async () => {
  const env = lanesEnv();
  const { a, as } = await twoSessions(env);
  const dir = join((await lanes(['path', 'x'], as(a))).stdout.trim(), '..');
  const elsewhere = tmp('lanes-elsewhere-');
  rmSync(dir, { recursive: true });
  symlinkSync(elsewhere, dir);
  const r = await lanes(['handoff', 'put', 'meta.json'], { ...as(a), input: 'secret' });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /is a symlink or not a directory/);
  assert.deepEqual(readdirSync(elsewhere), [], 'nothing was written through the link');
});

test('get --from a session the store never knew is an unknown-session error; reading creates no directory', async () => {
  const home = tmp('lanes-home-');
  const env = lanesEnv(home);
  const { a, b, as } = await twoSessions(env);
  const unknown = await lanes(['handoff', 'get', 'x', '--from', 's-0000000000'], as(a));
  assert.equal(unknown.code, 1, unknown.stderr);
  assert.match(unknown.stderr, /session s-0000000000 is not known to the store/);
  const never = await lanes(['handoff', 'get', 'x', '--from', b], as(a));
  assert.equal(never.code, 1, never.stderr);
  assert.match(never.stderr, new RegExp(`no handoff x from session ${b}`));
  const mine = await lanes(['handoff', 'get', 'x'], as(a));
  assert.equal(mine.code, 1, mine.stderr);
  const run = join(home, 'run');
  const dirs = readdirSync(run);
  for (const id of ['s-0000000000', a, b])
    assert.equal(dirs.includes(id), false, `${id} got a directory from a read: ${dirs.join(', ')}`);
});

test("temp files of interrupted writes are removed by the next put; a live writer's temp is kept (issue 13, item 7)", async () => {
  const env = lanesEnv(tmp());
  const { a, as } = await twoSessions(env);
  const first = JSON.parse((await lanes(['handoff', 'put', 'meta.json', '--json'], { ...as(a), input: 'v1' })).stdout);
  const dir = join(first.path, '..');
  const gone = execFileSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
    encoding: 'utf8',
  });
  const dead = `.meta.json.${gone}.0123456789ab.tmp`;
  const live = `.meta.json.${process.pid}.00000000abcd.tmp`;
  const old = `.other.name.${process.pid}.ffffffffffff.tmp`;
  const foreign = '.notes.tmp';
  for (const f of [dead, live, old, foreign]) writeFileSync(join(dir, f), 'half a write');
  const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
  utimesSync(join(dir, old), twoHoursAgo, twoHoursAgo);
  const put = await lanes(['handoff', 'put', 'meta.json'], { ...as(a), input: 'v2' });
  assert.equal(put.code, 0, put.stderr);
  assert.deepEqual(readdirSync(dir).sort(), [foreign, live, 'meta.json'].sort());
  assert.equal((await lanes(['handoff', 'get', 'meta.json'], as(a))).stdout, 'v2');
});
