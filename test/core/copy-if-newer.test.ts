import { readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyIfNewer } from '../../src/core/copy-if-newer.js';
import { tmp } from '../helpers/env.js';

// A copy's time is kept only as precisely as utimes sets it: a copy that reads a fraction of a
// millisecond older than its source is the same version, not a stale one to copy over again (it
// was, in half of all copies: test/agents/gemini-chats failed in CI). Times set explicitly here.

const at = (p: string, ms: number) => utimesSync(p, ms / 1000, ms / 1000);

test('a copy whose time lost precision is the same version; a smaller or clearly older one is replaced; a newer one never', () => {
  const dir = tmp('lanes-copy-newer-');
  const [src, dst] = [join(dir, 'a.jsonl'), join(dir, 'b.jsonl')];
  const t = Date.parse('2026-12-03T09:00:00.123Z') + 0.4567;
  writeFileSync(src, 'turn 1\nturn 2\n');
  at(src, t);
  assert.equal(copyIfNewer(src, dst), true, 'no copy yet');
  at(dst, t - 0.3);
  assert.ok(statSync(dst).mtimeMs < statSync(src).mtimeMs, 'the target reads older, as a copy can');
  assert.equal(copyIfNewer(src, dst), false, 'the same version, read a fraction of a millisecond older');

  writeFileSync(dst, 'turn 1\n');
  at(dst, t - 1000);
  assert.equal(copyIfNewer(src, dst), true, 'within the precision but missing a turn: replaced');
  assert.equal(readFileSync(dst, 'utf8'), 'turn 1\nturn 2\n');

  at(dst, t - 5000);
  assert.equal(copyIfNewer(src, dst), true, 'the same size but five seconds older: replaced');

  writeFileSync(dst, 'turn 1\nturn 2\nturn 3 elsewhere\n');
  at(dst, t + 10);
  assert.equal(copyIfNewer(src, dst), false, 'a newer copy is never replaced');
  assert.match(readFileSync(dst, 'utf8'), /turn 3 elsewhere/);
  assert.equal(copyIfNewer(join(dir, 'gone.jsonl'), dst), false, 'no source: nothing');
});
