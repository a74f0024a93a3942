import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lanes, lanesEnv, tmp } from '../helpers/env.js';

test('the binary saves V8 code caches in a private cache dir and uses them; garbage in a cache file is rejected, not run', async () => {
  const cache = tmp();
  const env = { ...lanesEnv(), XDG_CACHE_HOME: cache };
  const first = await lanes(['--version'], { env });
  assert.equal(first.code, 0);
  const files = readdirSync(join(cache, 'lanes'));
  assert.equal(files.length, 1, files.join(','));
  assert.match(files[0] ?? '', /^main\.cjs-v\d+\.\d+\.\d+-\w+-\d+-\d+-\d+\.v8$/);
  const second = await lanes(['--version'], { env });
  assert.equal(second.stdout, first.stdout);
  // Same name, wrong bytes: V8 rejects the data, lanes still works and writes a good cache.
  const file = join(cache, 'lanes', files[0] ?? '');
  writeFileSync(file, Buffer.alloc(4096, 7));
  const third = await lanes(['--version'], { env });
  assert.deepEqual([third.code, third.stdout], [0, first.stdout]);
  assert.notDeepEqual(readFileSync(file), Buffer.alloc(4096, 7));
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
