import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { openLanes } from '../../src/index.js';
import { gitRepo, lanes, lanesChild, lanesEnv, node, tmp } from '../helpers/env.js';

async function setup() {
  const home = tmp();
  const env = lanesEnv(home);
  const repo = gitRepo();
  const start = async (label: string, pid = process.pid) =>
    (
      await lanes(['start', '--label', label, '--ticket', `T-${label}`, '--pid', String(pid)], { env, cwd: repo })
    ).stdout.trim();
  const as = (id: string) => ({ env: { ...env, LANES_SESSION: id }, cwd: repo });
  return { home, env, repo, start, as };
}

test('a held claim exits 3 naming the holder; all-or-nothing; check and claims show it', async () => {
  const { start, as, repo } = await setup();
  const a = await start('alpha');
  const b = await start('beta');
  const got = await lanes(['claim', 'ticket:SEAT-42', 'path:src/billing/', '--json'], as(a));
  assert.equal(got.code, 0, got.stderr);
  const grants = JSON.parse(got.stdout);
  assert.deepEqual(
    grants.map((g: { token: number }) => g.token),
    [1, 1],
  );
  const held = await lanes(['claim', 'path:docs/', 'path:src/billing/invoice ü.ts'], as(b));
  assert.equal(held.code, 3);
  assert.match(
    held.stderr,
    new RegExp(
      `overlaps path:src/billing/, which is held by session ${a} \\(alpha, ticket T-alpha\\), pid ${process.pid}`,
    ),
  );
  assert.match(held.stderr, /fix: coordinate/);
  const check = await lanes(['check', 'path:src/billing/x.ts'], as(b));
  assert.equal(check.code, 3);
  assert.match(check.stdout, new RegExp(`held by session ${a}`));
  assert.equal((await lanes(['check', 'path:docs/'], as(b))).code, 0, 'nothing of the failed claim was granted');
  const claims = JSON.parse((await lanes(['claims', '--json'], as(b))).stdout);
  // The two claimed here and each session's ticket, claimed as it started.
  assert.equal(claims.length, 4);
  // From a subdirectory, relative paths are read from cwd (like git pathspecs).
  mkdirSync(join(repo, 'src'));
  const sub = await lanes(['check', 'path:./billing/a.ts'], { ...as(b), cwd: join(repo, 'src') });
  assert.equal(sub.code, 3);
  const rel = await lanes(['release', 'ticket:SEAT-42', 'path:src/billing/'], as(a));
  assert.equal(rel.code, 0, rel.stderr);
  const again = await lanes(['claim', 'ticket:SEAT-42', '--json'], as(b));
  assert.equal(JSON.parse(again.stdout)[0].token, 2, 'tokens survive release');
  const notMine = await lanes(['release', 'ticket:SEAT-42'], as(a));
  assert.equal(notMine.code, 1);
  assert.match(notMine.stderr, /not held by this session/);
  // --json: one JSON document (it used to print the result and then the error, two documents).
  const json = await lanes(['release', 'ticket:SEAT-42', '--json'], as(a));
  assert.equal(json.code, 1);
  const doc = JSON.parse(json.stdout) as { released: unknown[]; notHeld: unknown[]; error: { code: string } };
  assert.deepEqual([doc.released.length, doc.notHeld.length, doc.error.code], [0, 1, 'E_NOT_HOLDER']);
});

test('a dead holder does not block: takeover with a higher token; its stale token is fenced (exit 4)', async () => {
  const { env, start, as, home, repo } = await setup();
  const owner = node('sleeper.mjs', [], { env });
  const [, pid] = (await owner.waitFor(/ready (\d+)/)) as RegExpMatchArray;
  const dead = await start('doomed', Number(pid));
  const first = JSON.parse((await lanes(['claim', 'ticket:SEAT-9', '--json'], as(dead))).stdout)[0].token;
  owner.proc.kill('SIGKILL');
  await owner.exited;
  const b = await start('heir');
  const took = await lanes(['claim', 'ticket:SEAT-9'], as(b));
  assert.equal(took.code, 0, took.stderr);
  assert.match(took.stdout, /claimed ticket:SEAT-9 \(token 2\)/);
  assert.match(
    took.stdout,
    new RegExp(`took over ticket:SEAT-9 from session ${dead}: pid ${pid} has exited; last seen \\d+s ago, worktree `),
  );
  const lib = await openLanes({ store: join(home, 'lanes.db'), env, cwd: repo, session: b, notice: false });
  await assert.rejects(
    lib.claims.assertFenced('ticket:SEAT-9', first),
    (e: Error & { code?: string; exitCode?: number }) =>
      e.code === 'E_FENCED' && e.exitCode === 4 && /now held by session/.test(e.message),
  );
  await lib.claims.assertFenced('ticket:SEAT-9', 2);
  await lib.close();
});

test('ending a session releases its claims atomically', async () => {
  const { start, as } = await setup();
  const a = await start('a');
  await lanes(['claim', 'ticket:X', 'branch:feature', 'lock:db'], as(a));
  const end = await lanes(['end', '--json'], as(a));
  assert.equal(JSON.parse(end.stdout).released.length, 4, 'the three and its ticket');
  const b = await start('b');
  assert.equal((await lanes(['claim', 'ticket:X', 'branch:feature', 'lock:db'], as(b))).code, 0);
});

test(
  '--wait waits for the holder, honours its deadline (exit 5) and Ctrl-C (exit 5, nothing claimed)',
  { timeout: 30_000 },
  async () => {
    const { start, as } = await setup();
    const a = await start('a');
    const b = await start('b');
    await lanes(['claim', 'lock:deploy'], as(a));
    const timed = await lanes(['claim', '--wait=300ms', 'lock:deploy', 'lock:other'], as(b));
    assert.equal(timed.code, 5, timed.stderr);
    assert.match(timed.stderr, /gave up waiting for lock:deploy, lock:other after 300 ms/);
    const waiter = lanesChild(['claim', '--wait', 'lock:deploy'], as(b));
    await waiter.waitFor(/waiting for lock:deploy: .*held by session/, 'stderr');
    waiter.proc.kill('SIGINT');
    assert.equal((await waiter.exited).code, 5);
    assert.equal((await lanes(['check', 'lock:other'], as(a))).code, 0);
    const patient = lanesChild(['claim', '--wait=30s', 'lock:deploy'], as(b));
    await patient.waitFor(/waiting for/, 'stderr');
    await lanes(['release', 'lock:deploy'], as(a));
    assert.equal((await patient.exited).code, 0, patient.stderr);
    assert.match(patient.stdout, /claimed lock:deploy \(token 2\)/);
  },
);

test('claims need a session; bad resources exit 2', async () => {
  const { env, repo, start, as } = await setup();
  const none = await lanes(['claim', 'ticket:X'], { env, cwd: repo });
  assert.equal(none.code, 1);
  assert.match(none.stderr, /no session/);
  const a = await start('a');
  for (const bad of ['ticket', 'path:../outside', 'path:/etc/passwd', 'UPPER:x', 'path:a\u0001b']) {
    const r = await lanes(['claim', bad], as(a));
    assert.equal(r.code, 2, `${bad}: ${r.stderr}`);
    assert.match(r.stderr, /resource/);
  }
  const outside = await lanes(['claim', 'ticket:X'], { env: { ...env, LANES_SESSION: a }, cwd: tmp() });
  assert.equal(outside.code, 2);
  assert.match(outside.stderr, /not inside/);
});
