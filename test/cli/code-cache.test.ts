import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gitRepo, lanes, lanesEnv, tmp } from '../helpers/env.js';

const savesOf = (file: string) => {
  const raw = readFileSync(file);
  assert.equal(raw.subarray(0, 4).toString('latin1'), 'LNCC', 'the header');
  return raw.readUInt32BE(4);
};

test('the binary saves V8 code caches in a private cache dir and uses them; garbage in a cache file is rejected, not run', async () => {
  const cache = tmp();
  const env = { ...lanesEnv(), XDG_CACHE_HOME: cache };
  const first = await lanes(['--version'], { env });
  assert.equal(first.code, 0);
  const files = readdirSync(join(cache, 'lanes'));
  assert.equal(files.length, 1, files.join(','));
  assert.match(files[0] ?? '', /^main\.cjs-v\d+\.\d+\.\d+-\w+-\d+-\d+-\d+\.v8c$/);
  const file = join(cache, 'lanes', files[0] ?? '');
  assert.equal(savesOf(file), 1);
  const second = await lanes(['--version'], { env });
  assert.equal(second.stdout, first.stdout);
  // Same name, wrong bytes (no header, then the header and garbage for V8): rejected, lanes still
  // works and writes a good cache, counted from 1 again.
  for (const garbage of [
    Buffer.alloc(4096, 7),
    Buffer.concat([Buffer.from('LNCC\0\0\0\x03'), Buffer.alloc(4096, 7)]),
  ]) {
    writeFileSync(file, garbage);
    const third = await lanes(['--version'], { env });
    assert.deepEqual([third.code, third.stdout], [0, first.stdout]);
    assert.notDeepEqual(readFileSync(file), garbage);
    assert.equal(savesOf(file), 1);
  }
});

test("a cache gathers the functions of its first runs: the hook's are added to one lanes exec made, then it is only read", async () => {
  const cache = tmp();
  const repo = gitRepo();
  const base = { ...lanesEnv(), XDG_CACHE_HOME: cache };
  const started = await lanes(['start', '--pid', String(process.pid)], { env: base, cwd: repo });
  assert.equal(started.code, 0, started.stderr);
  const env = { ...base, LANES_SESSION: started.stdout.trim() };
  rmSync(join(cache, 'lanes'), { recursive: true }); // start's own (main.cjs)
  assert.equal((await lanes(['exec', '--', 'true'], { env, cwd: repo })).code, 0);
  const [name] = readdirSync(join(cache, 'lanes'));
  const file = join(cache, 'lanes', name ?? '');
  const byExec = readFileSync(file).length;
  const payload = JSON.stringify({
    session_id: 'cache-1',
    cwd: repo,
    tool_name: 'Edit',
    tool_input: { file_path: join(repo, 'a') },
  });
  const hook = await lanes(['hook', 'claude-code', 'pre-tool-use'], { env, cwd: repo, input: payload });
  assert.equal(hook.code, 0, hook.stderr);
  assert.equal(savesOf(file), 2);
  assert.ok(readFileSync(file).length > byExec, `the hook's functions added (${byExec} bytes before)`);
  for (let i = 0; i < 8; i++) assert.equal((await lanes(['exec', '--', 'true'], { env, cwd: repo })).code, 0);
  assert.equal(savesOf(file), 8, 'saved by its first 8 runs');
  const settled = readFileSync(file);
  assert.equal((await lanes(['exec', '--', 'true'], { env, cwd: repo })).code, 0);
  assert.deepEqual(readFileSync(file), settled, 'then only read');
  assert.deepEqual(readdirSync(join(cache, 'lanes')), [name], 'one file, no temporary left');
});

test('no cache in a directory others can write, nor with LANES_NO_CODE_CACHE=1', async () => {
  const open = tmp();
  chmodSync(open, 0o777);
  const env = { ...lanesEnv(), XDG_CACHE_HOME: open };
  mkdirSync(join(open, 'lanes'), { mode: 0o777 });
  chmodSync(join(open, 'lanes'), 0o777);
  assert.equal((await lanes(['--version'], { env })).code, 0);
  assert.deepEqual(readdirSync(join(open, 'lanes')), []);
  const off = tmp();
  assert.equal(
    (await lanes(['--version'], { env: { ...lanesEnv(), XDG_CACHE_HOME: off, LANES_NO_CODE_CACHE: '1' } })).code,
    0,
  );
  assert.deepEqual(readdirSync(off), []);
});
