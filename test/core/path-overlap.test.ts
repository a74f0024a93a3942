import { test } from 'node:test';
import assert from 'node:assert/strict';
import { overlapLookup } from '../../src/core/path-overlap.js';
import { pathsOverlap } from '../../src/core/resource.js';

// The lookup the stores run must select exactly the names that overlap (the stores filter again,
// so an over-selection would go unnoticed there and only cost time): checked against the simple
// model, pathsOverlap, over names packed around '/' and '0' in byte order.
const bytes = (s: string) => Buffer.from(s, 'utf8');
const selects = (query: string, stored: string) => {
  const l = overlapLookup(query);
  if (l.exact.includes(stored)) return true;
  return (
    l.below !== null &&
    Buffer.compare(bytes(stored), bytes(l.below.after)) > 0 &&
    Buffer.compare(bytes(stored), bytes(l.below.before)) < 0
  );
};

test('a path lookup selects exactly the overlapping names: itself, the directories above, the names below', () => {
  const segs = ['a', 'ab', 'a.b', 'a-b', 'a0', 'a/', 'é', 'a~', '0'];
  const names = new Set<string>();
  for (const x of segs)
    for (const y of ['', ...segs]) {
      const n = `src/${x}${y && !x.endsWith('/') ? '/' : ''}${y}`;
      names.add(n.replace(/\/\/+/g, '/'));
      names.add(`${x}`);
    }
  let checked = 0;
  for (const q of names)
    for (const n of names) {
      assert.equal(selects(q, n), pathsOverlap(q, n), `${q} vs ${n}`);
      checked++;
    }
  assert.ok(checked > 1000);
  assert.deepEqual(overlapLookup('src/a/b.ts').exact.sort(), ['src/', 'src/a/', 'src/a/b.ts', 'src/a/b.ts/']);
  assert.equal(overlapLookup('src/a/b.ts').below, null, 'a file has nothing below it');
  assert.equal(selects('src/a/', 'src/ab'), false);
  assert.equal(selects('src/a', 'src/ab/'), false);
});
