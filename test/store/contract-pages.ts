// Part of the store contract (contract.ts): a session's claims read a page at a time, its first
// few, and how many it holds, without reading the rest (what `lanes ls` shows at any number of
// claims), in the one key order (byte order) on every backend; its first few in the order a person
// reads them (ticket, path, branch, other kinds, port), key order within a kind.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { ClaimRecord, Store } from '../../src/store/types.js';
import { claimRank } from '../../src/core/resource.js';
import { judge, session } from './fixtures.js';

const key = (c: ClaimRecord) => `${c.sessionId} ${c.scope} ${c.kind} ${c.name}`;
const bytes = (c: ClaimRecord) => Buffer.from(`${c.scope}\0${c.kind}\0${c.name}`);

/** Every claim through pages of `size` (`after` the last key of the page before). */
async function paged(s: Store, filter: { sessionId?: string }, size: number): Promise<ClaimRecord[]> {
  const out: ClaimRecord[] = [];
  for (let after: ClaimRecord | undefined; ;) {
    const page = await s.listClaims({ ...filter, limit: size, ...(after ? { after } : {}) });
    assert.ok(page.length <= size, 'a page holds at most its limit');
    out.push(...page);
    if (page.length < size) return out;
    after = page.at(-1);
  }
}

export function pagesContract(store: () => Store): void {
  it('pages through claims in key order, reads the first of each session and counts them', async () => {
    const s = store();
    for (const id of ['pa', 'pb', 'pc', 'pd']) await s.insertSession(session(id));
    // Names next to each other in byte order (upper before lower case, '/' before '0', é after z),
    // over two scopes and two kinds.
    const names = ['a', 'B', 'a/b', 'a0', 'a-b', 'é', 'z', 'Z', 'a b', '~', 'src/x.ts', 'src/x/', 'src/x0'];
    for (const scope of ['repo:/r/.git', 'repo:/q/.git'])
      for (const kind of ['lock', 'path'])
        for (const name of names) assert.ok((await s.acquireClaims('pa', [{ scope, kind, name }], judge)).ok);
    for (const name of ['b3', 'b1', 'b2'])
      assert.ok((await s.acquireClaims('pb', [{ scope: 'machine', kind: 'lock', name }], judge)).ok);
    assert.ok((await s.acquireClaims('pd', [{ scope: 'machine', kind: 'lock', name: 'd' }], judge)).ok);
    const whole = await s.listClaims({ sessionId: 'pa' });
    assert.equal(whole.length, 52);
    const sorted = [...whole].sort((x, y) =>
      Buffer.compare(Buffer.from(`${x.scope}\0${x.kind}\0${x.name}`), Buffer.from(`${y.scope}\0${y.kind}\0${y.name}`)),
    );
    assert.deepEqual(whole.map(key), sorted.map(key), 'byte order');
    for (const size of [1, 7, 52, 60])
      assert.deepEqual((await paged(s, { sessionId: 'pa' }, size)).map(key), whole.map(key));
    assert.deepEqual((await paged(s, {}, 10)).map(key), (await s.listClaims()).map(key), 'every claim, paged');
    assert.deepEqual(await s.listClaims({ sessionId: 'pa', after: whole.at(-1)!, limit: 5 }), [], 'past the last');
    assert.deepEqual(
      (await s.listClaims({ sessionId: 'pa', after: whole[9]!, limit: 3 })).map(key),
      whole.slice(10, 13).map(key),
    );
    // The first of each, sessions in the order asked (once each), none of one holding none: in
    // the order a person reads them (ticket, path, branch, other kinds, port), then key order.
    const byRank = (cs: ClaimRecord[]) =>
      [...cs].sort((x, y) => claimRank(x.kind) - claimRank(y.kind) || Buffer.compare(bytes(x), bytes(y)));
    const first = await s.firstClaims(['pb', 'pa', 'pc', 'pb'], 4);
    assert.deepEqual(first.map(key), [
      ...(await s.listClaims({ sessionId: 'pb' })).map(key),
      ...byRank(whole).slice(0, 4).map(key),
    ]);
    assert.ok(
      first.slice(3).every((c) => c.kind === 'path'),
      "pa's paths before its locks, though lock sorts first",
    );
    assert.deepEqual(await s.firstClaims([], 4), []);
    // Every rank, each kind's claims in key order, on a session holding a port, a ticket, a branch, …
    await s.insertSession(session('pe'));
    const mixed = [
      ['host:h', 'port', '28715'],
      ['host:h', 'port', '28714'],
      ['host:h', 'lock', 'db'],
      ['repo:/r/.git', 'ticket', 'SHOP-1'],
      ['repo:/r/.git', 'path', 'src/b/'],
      ['repo:/r/.git', 'path', 'src/a/'],
      ['repo:/r/.git', 'branch', 'lanes/shop-1'],
      ['host:h', 'file', '/home/me/.npmrc'],
    ];
    for (const [scope, kind, name] of mixed)
      assert.ok((await s.acquireClaims('pe', [{ scope: scope!, kind: kind!, name: name! }], judge)).ok);
    const ranked = byRank(await s.listClaims({ sessionId: 'pe' }));
    assert.deepEqual(
      ranked.map((c) => `${c.kind}:${c.name}`),
      [
        'ticket:SHOP-1',
        'path:src/a/',
        'path:src/b/',
        'branch:lanes/shop-1',
        'file:/home/me/.npmrc',
        'lock:db',
        'port:28714',
        'port:28715',
      ],
    );
    for (const n of [1, 3, 8, 9])
      assert.deepEqual((await s.firstClaims(['pe'], n)).map(key), ranked.slice(0, n).map(key), `first ${n}`);
    assert.deepEqual([...(await s.claimCounts(['pa', 'pb', 'pc', 'pa']))].sort(), [
      ['pa', 52],
      ['pb', 3],
    ]);
    assert.deepEqual((await s.claimHolders()).sort(), ['pa', 'pb', 'pd', 'pe']);
  });
}
