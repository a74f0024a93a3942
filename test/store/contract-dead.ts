// Part of the store contract (contract.ts, registered with contract-scale.ts): what `lanes ls`
// asks of the open sessions recorded dead (dead-types.ts): counts, the worktrees where they may
// have left work, and those needing attention, on every backend.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { NewSession, SessionRecord, Store } from '../../src/store/types.js';
import { session } from './fixtures.js';

const REPO = 'repo:/r/.git';
const mark = (x: SessionRecord) => ({ id: x.id, lastSeenAt: x.lastSeenAt, owner: x.owner, why: 'pid gone' });
const ids = (xs: SessionRecord[]) => xs.map((x) => x.id);

/** Sessions made in this order (ids in the same order: a tie on created_at goes by id). */
async function started(s: Store, list: NewSession[]): Promise<Map<string, SessionRecord>> {
  const out = new Map<string, SessionRecord>();
  for (const x of list) out.set(x.id, await s.insertSession(x));
  return out;
}

export function deadContract(store: () => Store): void {
  it('the recorded dead: counted, their loose worktrees, and those holding claims or in named worktrees first', async () => {
    const s = store();
    const on = (id: string, worktree: string | null, host = 'h'): NewSession => ({
      ...session(id),
      worktree,
      owner: { ...session(id).owner, host },
    });
    const all = await started(s, [
      on('a', '/wa'), // holds a claim, alone in its worktree
      on('b', '/w1'),
      on('c', '/w2'),
      on('d', '/w1', 'h2'), // another host
      on('e', null),
      on('f', '/w1'), // ended after its death was recorded
      on('g', '/w1'), // never recorded dead (unproven): not the store's to count
      on('k', '/wk'), // holds a claim, alone in its worktree
      on('l', '/w3'), // live
    ]);
    for (const id of ['a', 'k'])
      assert.ok((await s.acquireClaims(id, [{ scope: REPO, kind: 'path', name: `${id}.ts` }], () => [])).ok);
    const dead = ['a', 'b', 'c', 'd', 'e', 'f', 'k'].map((id) => mark(all.get(id)!));
    assert.equal((await s.recordDead(dead)).length, 7);
    await s.endSession('f', 'done');

    assert.deepEqual(await s.deadWorktrees('h'), ['/w1', '/w2'], 'not /wa nor /wk: their dead hold claims');
    assert.deepEqual(await s.deadWorktrees('h2'), ['/w1']);
    assert.deepEqual(await s.deadWorktrees('elsewhere'), []);

    const ask = (o: { host?: string; worktrees?: string[]; limit?: number; exclude?: string[] }) =>
      s.deadAttention({
        host: o.host ?? 'h',
        worktrees: o.worktrees ?? [],
        limit: o.limit ?? 50,
        exclude: o.exclude ?? [],
      });
    const one = await ask({ worktrees: ['/w1'] });
    assert.equal(one.dead, 6, 'a b c d e k: f ended, g unproven');
    assert.equal(one.attention, 3);
    assert.deepEqual(ids(one.first), ['a', 'b', 'k'], 'holders and /w1 on this host, in order of creation');
    assert.deepEqual(one.first[0], await s.getSession('a'), 'in full');
    assert.equal(one.first[0]?.deadWhy, 'pid gone');
    const two = await ask({ worktrees: ['/w1'], limit: 2 });
    assert.deepEqual([two.dead, two.attention, ids(two.first)], [6, 3, ['a', 'b']], 'the first `limit`, all counted');
    assert.deepEqual(ids((await ask({ worktrees: ['/w1'], limit: 0 })).first), []);
    const ex = await ask({ worktrees: ['/w1'], exclude: ['b', 'nope', 'g'] });
    assert.deepEqual([ex.dead, ex.attention, ids(ex.first)], [5, 2, ['a', 'k']], 'the excluded are in nothing');
    const held = await ask({ worktrees: ['/wa', '/nowhere'] });
    assert.deepEqual([held.attention, ids(held.first)], [2, ['a', 'k']], 'a holder in a named worktree counted once');
    const h2 = await ask({ host: 'h2', worktrees: ['/w1', '/w2'] });
    assert.deepEqual(ids(h2.first), ['a', 'd', 'k'], "another host's worktrees are its own");

    // A sign of life lifts the record: no longer counted nor chosen.
    assert.equal(await s.touchSession('b'), true);
    const after = await ask({ worktrees: ['/w1'] });
    assert.deepEqual([after.dead, after.attention, ids(after.first)], [5, 2, ['a', 'k']]);
    assert.deepEqual(await s.deadWorktrees('h'), ['/w2']);
  });

  it('thousands of recorded dead: the counts and the first of those needing attention match a model', async () => {
    const s = store();
    const now = await s.now();
    const n = 3000;
    const base: SessionRecord = {
      ...session('x'),
      createdAt: now,
      lastSeenAt: now,
      endedAt: null,
      endReason: null,
      deadWhy: null,
      attention: null,
      terminal: null,
      conversation: null,
      conversationPid: null,
      died: null,
      setupState: null,
      envSlug: null,
      parent: null,
      task: null,
    };
    // Created out of id order (by i * 7 mod n): the first chosen are by creation, not by id.
    const sessions = Array.from({ length: n }, (_, i) => ({
      ...base,
      id: `s${String(i).padStart(5, '0')}`,
      createdAt: now - n + ((i * 7) % n),
      worktree: i % 97 === 0 ? '/dirty' : i % 89 === 0 ? '/clean' : `/own/${i}`,
      endedAt: i % 10 === 9 ? now : null,
    }));
    const claims = sessions
      .filter((_, i) => i % 31 === 0)
      .map((x) => ({ scope: REPO, kind: 'path', name: `${x.id}.ts`, sessionId: x.id, token: 1, acquiredAt: now }));
    await s.load(
      { sessions, claims, fences: claims.map((c) => ({ ...c, lastToken: 1 })), state: [], gates: [] },
      {
        replace: true,
      },
    );
    const open = sessions.filter((x) => x.endedAt === null);
    for (let i = 0; i < open.length; i += 500) await s.recordDead(open.slice(i, i + 500).map(mark));
    const holders = new Set(claims.map((c) => c.sessionId));
    const exclude = [open[5]!.id, open[1000]!.id];
    const model = open
      .filter((x) => !exclude.includes(x.id) && (holders.has(x.id) || x.worktree === '/dirty'))
      .sort((p, q) => p.createdAt - q.createdAt || (p.id < q.id ? -1 : 1));
    const got = await s.deadAttention({ host: 'h', worktrees: ['/dirty'], limit: 50, exclude });
    assert.equal(got.dead, open.length - 2);
    assert.equal(got.attention, model.length);
    assert.ok(model.length > 50, `more than shown (${model.length})`);
    assert.deepEqual(ids(got.first), ids(model.slice(0, 50)));
    const loose = new Set(open.filter((x) => !holders.has(x.id)).map((x) => x.worktree));
    assert.deepEqual(
      await s.deadWorktrees('h'),
      [...loose].sort((p, q) => (p! < q! ? -1 : 1)),
    );
  });
}
