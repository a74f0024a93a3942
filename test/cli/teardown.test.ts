import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { allowConfig, gitRepo, lanes, lanesEnv, tmp, watching } from '../helpers/env.js';

// Issue 45, item 3: a session's [session] teardown runs wherever its setup ran, exactly once, with
// that session's environment, whoever ends it (its wrapper, lanes stop, the reap after a death);
// never where no setup ran; and a successor on the same ticket never shares the templated names of
// a predecessor whose teardown is still due (a failed teardown keeps its database name taken).

async function world(teardown = 'echo "$APP_DB" >> "$OUT/teardowns"') {
  const repo = gitRepo();
  const out = tmp('lanes-teardown-out-');
  writeFileSync(
    join(repo, 'lanes.toml'),
    `[env]\nAPP_DB = "app_{slug}"\n\n[session]\nsetup = 'echo "$APP_DB" >> "$OUT/setups"'\nteardown = '${teardown}'\n`,
  );
  execFileSync('git', ['add', 'lanes.toml'], { cwd: repo });
  execFileSync('git', ['commit', '-qm', 'lanes.toml'], { cwd: repo });
  const env = watching({ ...lanesEnv(), OUT: out });
  await allowConfig(repo, env);
  return { repo, out, env, opts: { env, cwd: repo } };
}

const lines = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n') : []);

async function until(what: string, ok: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  for (const end = Date.now() + ms; !(await ok());) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('teardown runs once wherever setup ran: the wrapper at its agent’s exit, lanes stop, the reap after a death', async () => {
  const w = await world();
  // Its wrapper, when the agent exits.
  const a = await lanes(['new', 'T-1', '--background', '--', 'sh', '-c', 'sleep 1'], w.opts);
  assert.equal(a.code, 0, a.stderr);
  // lanes stop.
  const b = await lanes(['new', 'T-2', '--background', '--json', '--', 'sleep', '600'], w.opts);
  assert.equal((await lanes(['stop', (JSON.parse(b.stdout) as { session: string }).session], w.opts)).code, 0);
  // A death (wrapper and agent killed), then the reap.
  const c = await lanes(['new', 'T-3', '--background', '--json', '--', 'sleep', '600'], w.opts);
  const cId = (JSON.parse(c.stdout) as { session: string }).session;
  const wrapper = (
    JSON.parse((await lanes(['ls', '--json'], w.opts)).stdout) as { id: string; owner: { pid: number } }[]
  ).find((s) => s.id === cId)!.owner.pid;
  const kids = readFileSync(`/proc/${wrapper}/task/${wrapper}/children`, 'utf8').trim().split(/\s+/).map(Number);
  process.kill(wrapper, 'SIGKILL');
  for (const k of kids) if (!readFileSync(`/proc/${k}/cmdline`, 'utf8').includes('watch')) process.kill(k, 'SIGKILL');
  await until('the wrapper of T-1 ended its session', () => lines(join(w.out, 'teardowns')).includes('app_t-1'));
  await new Promise((r) => setTimeout(r, 1200));
  const reap = { ...w.opts, env: { ...w.env, LANES_GC_AFTER_MS: '1000' } };
  await until('the reap ended T-3', async () => {
    await lanes(['claims'], reap);
    return lines(join(w.out, 'teardowns')).includes('app_t-3');
  });
  assert.deepEqual(lines(join(w.out, 'setups')).sort(), ['app_t-1', 'app_t-2', 'app_t-3']);
  assert.deepEqual(lines(join(w.out, 'teardowns')).sort(), ['app_t-1', 'app_t-2', 'app_t-3'], 'each exactly once');
  // Nothing more is due: once means once.
  const again = await lanes(['teardown', cId], w.opts);
  assert.match(again.stdout, /no teardown due/);
  assert.equal(lines(join(w.out, 'teardowns')).length, 3);
});

test('a successor on a ticket whose predecessor’s teardown failed gets names of its own; lanes teardown runs it again', async () => {
  const w = await world('echo "$APP_DB" >> "$OUT/teardowns"; test -e "$OUT/allow"');
  const first = await lanes(['new', 'T-9', '--background', '--json', '--', 'sleep', '600'], w.opts);
  const id = (JSON.parse(first.stdout) as { session: string }).session;
  const stopped = await lanes(['stop', id], w.opts);
  assert.match(stopped.stderr, new RegExp(`teardown failed; run it again with \`lanes teardown ${id}\``));
  // --fresh: the predecessor left its worktree (lanes new asks to resume it or start anew).
  const second = await lanes(['new', 'T-9', '--fresh', '--background', '--json', '--', 'sleep', '600'], w.opts);
  assert.equal(second.code, 0, second.stderr);
  assert.deepEqual(lines(join(w.out, 'setups')), ['app_t-9', 'app_t-9-2'], 'the successor never shares app_t-9');
  writeFileSync(join(w.out, 'allow'), '');
  const again = await lanes(['teardown', id], w.opts);
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual(lines(join(w.out, 'teardowns')), ['app_t-9', 'app_t-9']);
  await lanes(['stop', (JSON.parse(second.stdout) as { session: string }).session], w.opts);
  assert.deepEqual(lines(join(w.out, 'teardowns')), ['app_t-9', 'app_t-9', 'app_t-9-2']);
});
