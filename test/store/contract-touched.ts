// Part of the store contract (contract.ts): the index of touched paths (store/touched-types.ts),
// read by folded key, for open sessions only, replaced whole at a turn's end, on every backend.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { Store } from '../../src/store/types.js';
import { touchedKey } from '../../src/store/touched-types.js';
import { session } from './fixtures.js';

const sorted = (hits: { sessionId: string; path: string }[]) => hits.map((h) => `${h.sessionId} ${h.path}`).sort();

export function touchedContract(store: () => Store): void {
  it('indexTouched adds or replaces a session’s paths; touchedAt finds them by folded key, open sessions only', async () => {
    const s = store();
    for (const id of ['ta', 'tb', 'tc']) await s.insertSession(session(id));
    await s.indexTouched('ta', '/r/.git', ['src/Cart.ts', 'src/é.ts'], false);
    await s.indexTouched('ta', '/r/.git', ['src/Cart.ts', 'docs/a.md'], false); // a repeat is one row
    await s.indexTouched('tb', '/r/.git', ['src/cart.ts'], false);
    await s.indexTouched('tb', '/other/.git', ['src/Cart.ts'], false);
    const key = touchedKey('SRC/CART.TS');
    assert.deepEqual(sorted(await s.touchedAt('/r/.git', [key])), ['ta src/Cart.ts', 'tb src/cart.ts']);
    // NFD spelling of é finds the NFC row.
    assert.deepEqual(sorted(await s.touchedAt('/r/.git', [touchedKey('src/e\u0301.ts')])), ['ta src/é.ts']);
    assert.deepEqual(await s.touchedAt('/r/.git', []), []);
    // The turn's end: the whole list, the rest goes.
    await s.indexTouched('ta', '/r/.git', ['docs/a.md'], true);
    assert.deepEqual(sorted(await s.touchedAt('/r/.git', [key, touchedKey('docs/a.md')])), [
      'ta docs/a.md',
      'tb src/cart.ts',
    ]);
    await s.indexTouched('ta', '/r/.git', [], true);
    assert.deepEqual(sorted(await s.touchedAt('/r/.git', [touchedKey('docs/a.md')])), []);
    // An ended session's rows are not read.
    await s.endSession('tb', 'done');
    assert.deepEqual(await s.touchedAt('/r/.git', [key]), []);
    // Many keys at once, and a path with quotes and a newline.
    const odd = 'it\'s "odd"\nname.ts';
    await s.indexTouched('tc', '/r/.git', [odd, ...Array.from({ length: 500 }, (_, i) => `f${i}.ts`)], false);
    const many = await s.touchedAt('/r/.git', [touchedKey(odd), ...Array.from({ length: 500 }, (_, i) => `f${i}.ts`)]);
    assert.equal(many.length, 501);
    assert.ok(many.some((h) => h.path === odd));
  });
}
