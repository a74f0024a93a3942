import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { integrity } from '../helpers/sqlite.js';
import { openLanes } from '../../src/index.js';
import { gitRepo, lanes, lanesEnv, node } from '../helpers/env.js';
import { answer, fixture, hook } from '../helpers/hooks.js';
import { NEEDS_ROOT, fillDisk, smallTmpfs } from '../helpers/tmpfs.js';
import { skipOrFail } from '../helpers/needs.js';

// Issue 13, items 1 and 2: the store and the runtime directory on a 1 MiB tmpfs, filled to the
// last byte. Reads keep working, every write says the disk is full (exit 1, never a takeover),
// nothing is half-written, and everything works again once space is freed.

const A = 'aaaaaaaa-1111-4111-8111-aaaaaaaaaaaa';
const B = 'bbbbbbbb-2222-4222-8222-bbbbbbbbbbbb';
const FULL = /the disk holding the store .*lanes\.db is full \(\d+ bytes free of 1\.0 MiB\): nothing was changed/;

async function fleetOnTmpfs(mnt: string) {
  const repo = gitRepo();
  mkdirSync(join(repo, 'src'));
  writeFileSync(join(repo, 'src', 'app.ts'), 'v1\n');
  execFileSync('git', ['add', '-A'], { cwd: repo });
  execFileSync('git', ['commit', '-qm', 'src'], { cwd: repo });
  const env = { ...lanesEnv(join(mnt, 'home')), XDG_RUNTIME_DIR: join(mnt, 'run') };
  mkdirSync(join(mnt, 'run'), { mode: 0o700 });
  const opts = { env, cwd: repo };
  await hook('claude-code', 'session-start', fixture('claude-code', 'session-start', repo, A), opts);
  await hook('claude-code', 'session-start', fixture('claude-code', 'session-start', repo, B), opts);
  const asA = { env: { ...env, LANES_SESSION: `claude-code:${A}` }, cwd: repo };
  const ok = async (args: string[], input?: string) => {
    const r = await lanes(args, { ...asA, ...(input === undefined ? {} : { input }) });
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
    return r;
  };
  await ok(['claim', 'path:src/app.ts']);
  await ok(['state', 'set', 'step', '"one"']);
  await ok(['handoff', 'put', 'notes.md'], 'handed over ü😀\n');
  return { repo, env, opts, asA, ok };
}

test('a full disk with nothing holding the store open: reads work, writes say the disk is full, nothing is lost', async (t) => {
  const mnt = smallTmpfs();
  if (!mnt) return skipOrFail(t, 'root and mount', NEEDS_ROOT);
  const { repo, opts, asA, ok } = await fleetOnTmpfs(mnt);
  const free = fillDisk(mnt);

  // Reads.
  assert.equal((await ok(['state', 'get', 'step'])).stdout.trim(), '"one"');
  assert.equal((await ok(['handoff', 'get', 'notes.md'])).stdout, 'handed over ü😀\n');
  assert.match((await ok(['claims'])).stdout, /path:src\/app\.ts/);
  assert.match((await ok(['ls'])).stdout, new RegExp(`claude-code:${B}`));
  assert.match((await ok(['whoami'])).stdout, new RegExp(`claude-code:${A}`));
  // The safety holds on a full disk: B is still denied the claimed file.
  const denied = answer(
    await hook(
      'claude-code',
      'pre-tool-use',
      fixture('claude-code', 'pre-tool-use-edit', repo, B, (p) => {
        (p['tool_input'] as Record<string, unknown>)['file_path'] = join(repo, 'src', 'app.ts');
      }),
      opts,
    ),
  );
  assert.equal((denied['hookSpecificOutput'] as Record<string, string>)['permissionDecision'], 'deny');

  // Writes: exit 1, the disk named, never a takeover (exit 4) or a permissions hint.
  const writes: Array<[string[], string | undefined]> = [
    [['state', 'set', 'step', '"two"'], undefined],
    [['state', 'clear', 'step'], undefined],
    [['claim', 'lock:deploy'], undefined],
    [['release', 'path:src/app.ts'], undefined],
    [['start', '--pid', String(process.pid)], undefined],
    [['port', 'web'], undefined],
  ];
  for (const [args, input] of writes) {
    const r = await lanes(args, { ...asA, ...(input === undefined ? {} : { input }) });
    assert.equal(r.code, 1, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
    assert.match(r.stderr, FULL, args.join(' '));
    assert.doesNotMatch(r.stderr, /taken over|permission/i, args.join(' '));
  }
  const put = await lanes(['handoff', 'put', 'notes.md'], { ...asA, input: 'x'.repeat(300_000) });
  assert.equal(put.code, 1, put.stderr);
  assert.match(put.stderr, /the disk is full: could not write .*notes\.md; nothing was changed/);

  // Nothing half-written; all readable again once space is freed, and writes work.
  free();
  assert.equal(integrity(join(mnt, 'home', 'lanes.db')), 'ok');
  assert.equal((await ok(['state', 'get', 'step'])).stdout.trim(), '"one"');
  assert.equal((await ok(['handoff', 'get', 'notes.md'])).stdout, 'handed over ü😀\n');
  assert.deepEqual(
    readdirSync(join(mnt, 'run', 'lanes', `claude-code:${A}`)).filter((f) => f.endsWith('.tmp')),
    [],
  );
  await ok(['state', 'set', 'step', '"two"']);
  assert.equal((await ok(['state', 'get', 'step'])).stdout.trim(), '"two"');
  await ok(['claim', 'lock:deploy']);
});

test('a full disk while another process holds the store open: a failed write is exit 1, never a takeover', async (t) => {
  const mnt = smallTmpfs();
  if (!mnt) return skipOrFail(t, 'root and mount', NEEDS_ROOT);
  const { asA, ok } = await fleetOnTmpfs(mnt);
  // Another process has the store open (its WAL and SHM exist), as a running agent's hook would.
  const holder = node('sqlite-holder.mjs', [join(mnt, 'home', 'lanes.db')]);
  await holder.waitFor(/open/);
  const free = fillDisk(mnt);
  for (let i = 0; i < 5; i++) {
    const r = await lanes(['state', 'set', 'step', `"try ${i}"`], asA);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, FULL);
    assert.doesNotMatch(r.stderr, /lost the gate|taken over/);
  }
  assert.equal((await ok(['state', 'get', 'step'])).stdout.trim(), '"one"');
  free();
  await ok(['state', 'set', 'step', '"after"']);
  assert.equal((await ok(['state', 'get', 'step'])).stdout.trim(), '"after"');
  holder.send('close');
  await holder.exited;
  assert.equal(integrity(join(mnt, 'home', 'lanes.db')), 'ok');
});

test('a full disk during an async mutate (the gate path): E_STORE_FULL, never a takeover or a fencing refusal', async (t) => {
  const mnt = smallTmpfs();
  if (!mnt) return skipOrFail(t, 'root and mount', NEEDS_ROOT);
  const { env, repo } = await fleetOnTmpfs(mnt);
  const l = await openLanes({ env, cwd: repo, notice: false, session: `claude-code:${A}` });
  try {
    const id = `claude-code:${A}`;
    // One async mutate first: the gate's row exists, so the next take is its one-statement UPDATE … RETURNING.
    await l.state.mutate(id, async (cur) => ({ ...(cur as Record<string, string>), step: 'gated' }));
    const before = await l.state.get(id);
    const free = fillDisk(mnt);
    for (let i = 0; i < 5; i++) {
      // An async function: the mutate takes the session's gate, works, then writes and releases.
      const attempt = l.state.mutate(id, async (cur) => {
        await new Promise((r) => setImmediate(r));
        return { ...(cur as Record<string, string>), step: `try ${i}` };
      });
      await assert.rejects(attempt, (e: Error & { code?: string }) => {
        assert.equal(e.code, 'E_STORE_FULL', `${e.code}: ${e.message}`);
        assert.doesNotMatch(e.message, /lost the gate|taken over|fenc/);
        return true;
      });
    }
    assert.deepEqual(await l.state.get(id), before, 'nothing half-written');
    free();
    await l.state.mutate(id, async (cur) => ({ ...(cur as Record<string, string>), step: 'after' }));
    assert.equal(((await l.state.get(id)) as { step: string }).step, 'after');
  } finally {
    await l.close({ heartbeat: false });
  }
  assert.equal(integrity(join(mnt, 'home', 'lanes.db')), 'ok');
});
