import {
  appendFileSync,
  chmodSync,
  copyFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ROOT, gitRepo, lanes, lanesEnv, run, tmp } from '../helpers/env.js';

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

test('each hot command and hook event has a cache of its own, gathering the functions of its first runs, then only read', async () => {
  const cache = tmp();
  const repo = gitRepo();
  const base = { ...lanesEnv(), XDG_CACHE_HOME: cache };
  const started = await lanes(['start', '--pid', String(process.pid)], { env: base, cwd: repo });
  assert.equal(started.code, 0, started.stderr);
  const env = { ...base, LANES_SESSION: started.stdout.trim() };
  rmSync(join(cache, 'lanes'), { recursive: true }); // start's own (main.cjs)
  assert.equal((await lanes(['exec', '--', 'true'], { env, cwd: repo })).code, 0);
  const [execCache] = readdirSync(join(cache, 'lanes'));
  assert.match(execCache ?? '', /^hot\.cjs-v[\d.]+-\w+-\d+-\d+-\d+-exec\.v8c$/);
  const payload = JSON.stringify({
    session_id: 'cache-1',
    cwd: repo,
    tool_name: 'Edit',
    tool_input: { file_path: join(repo, 'a') },
  });
  const hook = () => lanes(['hook', 'claude-code', 'pre-tool-use'], { env, cwd: repo, input: payload });
  assert.equal((await hook()).code, 0);
  const hookCache = readdirSync(join(cache, 'lanes')).find((f) => f !== execCache) ?? '';
  // The hook's cache holds what the pre-edit check runs, not what lanes exec ran before it.
  assert.match(hookCache, /-hook\.pre-tool-use\.v8c$/);
  const file = join(cache, 'lanes', hookCache);
  assert.equal(savesOf(file), 1);
  for (let i = 0; i < 8; i++) assert.equal((await hook()).code, 0);
  // Each of those runs saved what V8 then held (not always more than before: V8 chooses what it keeps).
  assert.equal(savesOf(file), 8, 'saved by its first 8 runs');
  const settled = readFileSync(file);
  assert.equal((await hook()).code, 0);
  assert.deepEqual(readFileSync(file), settled, 'then only read');
  // An event named on the command line reaches the file name only as safe characters.
  await lanes(['hook', 'claude-code', '../../x y'], { env, cwd: repo, input: payload });
  for (const f of readdirSync(join(cache, 'lanes'))) assert.match(f, /^hot\.cjs-[\w.-]+\.v8c$/, f);
  assert.deepEqual(
    readdirSync(join(cache, 'lanes')).filter((f) => f.endsWith('.tmp')),
    [],
    'no temporary left',
  );
});

test('a new build of a bundle removes the caches of the old one, whatever their command or event', async () => {
  const cache = tmp();
  const dist = tmp();
  for (const f of ['cli.cjs', 'hot.cjs']) copyFileSync(join(ROOT, 'dist', f), join(dist, f));
  const env = { ...lanesEnv(), XDG_CACHE_HOME: cache };
  const call = (event: string) =>
    run(process.execPath, [join(dist, 'cli.cjs'), 'hook', 'claude-code', event], { env, input: '{}' });
  await call('pre-tool-use');
  await call('post-tool-use');
  const old = readdirSync(join(cache, 'lanes')).sort();
  assert.equal(old.length, 2, old.join(','));
  // The same bundle, rebuilt: another mtime (and size), so another key.
  appendFileSync(join(dist, 'hot.cjs'), '\n');
  utimesSync(join(dist, 'hot.cjs'), new Date(), new Date(Date.now() + 5000));
  await call('stop');
  const now = readdirSync(join(cache, 'lanes'));
  assert.equal(now.length, 1, now.join(','));
  assert.match(now[0] ?? '', /-hook\.stop\.v8c$/);
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
