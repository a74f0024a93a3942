// Part of the store contract (contract.ts): the reads the hot path depends on to stay flat as the
// store grows: claims found through the index by path overlap, and sessions proven dead recorded
// once. Registered inside storeContract's describe, so every backend runs it unchanged.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { resourcesConflict } from '../../src/core/resource.js';
import type { ResourceRef } from '../../src/core/resource.js';
import type { ClaimRecord, SessionRecord, Store } from '../../src/store/types.js';
import { DEAD_PID, judge, session } from './fixtures.js';

export { deadContract } from './contract-dead.js';

const REPO = 'repo:/r/.git';
const key = (c: ResourceRef) => `${c.scope} ${c.kind} ${c.name}`;

// Names chosen to sit next to each other in byte order around '/' (0x2f) and '0' (0x30, the end
// of a directory's range): siblings like src/a and src/ab, src/a.b, src/a-b, src/a0, and non-ASCII.
const SEGMENTS = ['a', 'ab', 'a.b', 'a-b', 'a0', 'a~', 'é', 'b'];
function names(): string[] {
  const out: string[] = [];
  for (const x of SEGMENTS) {
    out.push(`src/${x}`, `src/${x}/`, `${x}`, `${x}/`);
    for (const y of SEGMENTS.slice(0, 4)) out.push(`src/${x}/${y}`, `src/${x}/${y}/`, `src/${x}/${y}/z.ts`);
  }
  return out;
}

/** Every name in the store once, held by one of a few sessions, loaded in one step. */
async function world(store: Store, claimed: string[]): Promise<ClaimRecord[]> {
  const now = await store.now();
  const sessions: SessionRecord[] = ['x', 'y', 'z'].map((id) => ({
    ...session(id),
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
  }));
  const claims = claimed.map((name, i) => ({
    scope: i % 7 === 0 ? 'repo:/other/.git' : REPO,
    kind: i % 11 === 0 ? 'ticket' : 'path',
    name,
    sessionId: sessions[i % 3]!.id,
    token: 1,
    acquiredAt: now,
  }));
  await store.load(
    { sessions, claims, fences: claims.map((c) => ({ ...c, lastToken: 1 })), state: [], gates: [] },
    { replace: true },
  );
  return claims;
}

export function scaleContract(store: () => Store): void {
  it('conflictingClaims finds exactly the claims a simple model says overlap (prefix both ways, no siblings)', async () => {
    const s = store();
    const all = names();
    // Every other name claimed, so both claimed and unclaimed names are asked about.
    const claims = await world(
      s,
      all.filter((_, i) => i % 2 === 0),
    );
    for (const name of all) {
      for (const kind of ['path', 'ticket']) {
        const want: ResourceRef = { scope: REPO, kind, name };
        const model = claims
          .filter((c) => resourcesConflict(want, c))
          .map(key)
          .sort();
        const got = (await s.conflictingClaims([want])).map(key).sort();
        assert.deepEqual(got, model, `${kind}:${name}`);
      }
    }
    assert.equal(
      (await s.conflictingClaims([{ scope: REPO, kind: 'path', name: 'src/a/' }])).some((c) => c.name === 'src/ab'),
      false,
    );
    const many = [
      { scope: REPO, kind: 'path', name: 'src/a/' },
      { scope: REPO, kind: 'path', name: 'src/ab/a' },
      { scope: REPO, kind: 'ticket', name: 'src/b' },
    ];
    assert.deepEqual(
      (await s.conflictingClaims(many)).map(key).sort(),
      claims
        .filter((c) => many.some((w) => resourcesConflict(w, c)))
        .map(key)
        .sort(),
      'several resources in one read, each claim once',
    );
  });

  it('a touch within freshForMs of the last one writes nothing, unless the session is recorded dead', async () => {
    const s = store();
    const a = await s.insertSession(session('a'));
    await new Promise((r) => setTimeout(r, 5));
    assert.equal(await s.touchSession('a', 60_000), true, 'fresh: still live');
    assert.equal((await s.getSession('a'))!.lastSeenAt, a.lastSeenAt, 'fresh: not rewritten');
    assert.equal(await s.touchSession('a', 2), true, 'older than 2 ms: refreshed');
    const touched = (await s.getSession('a'))!;
    assert.ok(touched.lastSeenAt > a.lastSeenAt);
    // Recorded dead: any sign of life lifts the record, however fresh the lease.
    const mark = { id: 'a', lastSeenAt: touched.lastSeenAt, owner: touched.owner, why: 'pid gone' };
    assert.deepEqual(await s.recordDead([mark]), [mark.id]);
    await new Promise((r) => setTimeout(r, 3));
    assert.equal(await s.touchSession('a', 60_000), true);
    assert.equal((await s.getSession('a'))!.deadWhy, null, 'the dead record lifted');
    await s.endSession('a', 'done');
    assert.equal(await s.touchSession('a', 60_000), false, 'ended');
    assert.equal(await s.touchSession('unknown', 60_000), false, 'unknown');
  });

  it("the listing's order without its records: ids and parents in creation order, ended ones on request", async () => {
    // ls --all reads the records a page at a time through getSessions, in this order.
    const s = store();
    await s.insertSession(session('a'));
    await s.insertSession(session('b'));
    await s.insertSession({ ...session('c'), parent: 'b' });
    await s.insertSession(session('d'));
    await s.endSession('d', 'done');
    assert.deepEqual(await s.sessionOutline({ includeEnded: false }), [
      { id: 'a', parent: null },
      { id: 'b', parent: null },
      { id: 'c', parent: 'b' },
    ]);
    const every = (await s.sessionOutline({ includeEnded: true })).map((x) => x.id);
    assert.deepEqual(every, ['a', 'b', 'c', 'd']);
    assert.deepEqual(
      every,
      (await s.listSessions({ includeEnded: true })).map((x) => x.id),
    );
  });

  it('a session proven dead is recorded once and left out of the hot read until something refreshes it', async () => {
    const s = store();
    const a = await s.insertSession(session('a', DEAD_PID));
    const b = await s.insertSession(session('b'));
    const open = async () => (await s.listSessions({ includeEnded: false, includeDead: false })).map((x) => x.id);
    assert.deepEqual(await open(), ['a', 'b']);
    const mark = (x: SessionRecord, why = 'pid gone') => ({ id: x.id, lastSeenAt: x.lastSeenAt, owner: x.owner, why });
    assert.equal((await s.recordDead([mark(a)])).length, 1);
    assert.deepEqual(await open(), ['b']);
    assert.equal((await s.getSession('a'))?.deadWhy, 'pid gone');
    const recorded = await s.deadAttention({ host: 'h', worktrees: ['/r'], limit: 5, exclude: [] });
    assert.deepEqual([recorded.dead, recorded.first.map((x) => x.id)], [1, ['a']]);
    assert.deepEqual(
      (await s.getSessions(['b', 'nope', 'a'])).map((x) => x.id),
      ['a', 'b'],
      'by id, in order of creation',
    );
    assert.deepEqual(await s.getSessions([]), []);
    const many = Array.from({ length: 40_000 }, (_, i) => `s-none${i}`);
    assert.deepEqual(
      (await s.getSessions([...many, 'b'])).map((x) => x.id),
      ['b'],
      'more ids than SQLite binds in one statement',
    );
    assert.deepEqual(
      (await s.listSessions({ includeEnded: false })).map((x) => x.id),
      ['a', 'b'],
      'the dead are still listed by default (they need attention)',
    );
    // Judged on a stale read: the session changed since (owner or last seen), nothing is recorded.
    assert.equal((await s.recordDead([{ ...mark(b), lastSeenAt: b.lastSeenAt - 1 }])).length, 0);
    assert.equal((await s.recordDead([{ ...mark(b), owner: { ...b.owner, pid: 4242 } }])).length, 0);
    assert.deepEqual(await open(), ['b']);
    // A heartbeat (a lapsed lease renewed by its own holder) or a re-attach lifts the record.
    await new Promise((r) => setTimeout(r, 3));
    assert.equal(await s.touchSession('a'), true);
    assert.equal((await s.getSession('a'))?.deadWhy, null);
    assert.deepEqual(await open(), ['a', 'b']);
    const again = (await s.getSession('a'))!;
    // Proven dead again after only a refresh: marked again (out of the hot read) but the same
    // death, not journaled or told a second time (a process its dead owner left behind called lanes).
    assert.deepEqual(await s.recordDead([mark(again, 'lease lapsed')]), []);
    assert.deepEqual(await open(), ['b'], 'marked again all the same');
    const died = (await s.readJournal({ kinds: ['session.died'] })).filter((e) => e.session === 'a');
    assert.equal(died.length, 1, 'one death, one entry');
    await new Promise((r) => setTimeout(r, 3));
    const re = await s.attachSession({ ...session('a', 100) });
    assert.equal(re.session.deadWhy, null);
    assert.deepEqual(await open(), ['a', 'b']);
    // A claim is a sign of life too: it lifts the record (a claim by a fresh session need not
    // rewrite its row, one by a session recorded dead always does).
    assert.equal((await s.recordDead([mark((await s.getSession('a'))!)])).length, 1);
    await new Promise((r) => setTimeout(r, 3));
    assert.ok((await s.acquireClaims('a', [{ scope: 'global', kind: 'lock', name: 'L' }], judge)).ok);
    assert.equal((await s.getSession('a'))?.deadWhy, null);
    assert.deepEqual(await open(), ['a', 'b']);
    // An ended session is never recorded dead, and an ended one is not "dead".
    await s.endSession('b', 'done');
    assert.equal((await s.recordDead([mark(b)])).length, 0);
    assert.equal((await s.getSession('b'))?.deadWhy, null);
    assert.deepEqual(await open(), ['a']);
  });

  it('claims over a pile of dead sessions: a dead holder is taken over, a live one blocks, through the index', async () => {
    const s = store();
    await s.insertSession(session('live'));
    await s.insertSession(session('gone', DEAD_PID));
    await s.insertSession(session('me'));
    assert.ok((await s.acquireClaims('live', [{ scope: REPO, kind: 'path', name: 'src/a/' }], judge)).ok);
    assert.ok((await s.acquireClaims('gone', [{ scope: REPO, kind: 'path', name: 'src/ab/' }], judge)).ok);
    const blocked = await s.acquireClaims('me', [{ scope: REPO, kind: 'path', name: 'src/a/x.ts' }], judge);
    assert.equal(blocked.ok, false, 'inside a live session’s directory');
    const over = await s.acquireClaims('me', [{ scope: REPO, kind: 'path', name: 'src/' }], judge);
    assert.equal(over.ok, false, 'above a live claim');
    const sibling = await s.acquireClaims('me', [{ scope: REPO, kind: 'path', name: 'src/ab/y.ts' }], judge);
    assert.ok(
      sibling.ok && sibling.grants[0]?.takenOver?.claim.name === 'src/ab/',
      'the dead holder’s claim is taken over',
    );
    assert.ok(
      (await s.acquireClaims('me', [{ scope: REPO, kind: 'path', name: 'src/a0' }], judge)).ok,
      'src/a0 is no sibling',
    );
  });

  it('a conditional end leaves a session that changed since it was judged; deadSessions lists the recorded dead by age', async () => {
    const s = store();
    const a = await s.insertSession(session('a', DEAD_PID));
    await s.acquireClaims('a', [{ scope: REPO, kind: 'path', name: 'src/a/' }], judge);
    const judged = (await s.getSession('a'))!;
    assert.equal(
      (await s.recordDead([{ id: 'a', lastSeenAt: judged.lastSeenAt, owner: a.owner, why: 'gone' }])).length,
      1,
    );
    const now = await s.now();
    assert.deepEqual(
      (await s.deadSessions({ seenBefore: now + 1, limit: 10 })).map((x) => x.id),
      ['a'],
    );
    assert.deepEqual(await s.deadSessions({ seenBefore: judged.lastSeenAt, limit: 10 }), [], 'not seen before then');
    await new Promise((r) => setTimeout(r, 3));
    await s.attachSession(session('a', 100)); // re-attached to a live owner meanwhile
    assert.deepEqual(await s.deadSessions({ seenBefore: (await s.now()) + 1, limit: 10 }), []);
    const kept = await s.endSession('a', 'gc', { lastSeenAt: judged.lastSeenAt, owner: judged.owner });
    assert.equal(kept?.changed, true);
    assert.equal((await s.getSession('a'))?.endedAt, null, 'left open');
    assert.equal((await s.listClaims({ sessionId: 'a' })).length, 1, 'its claims kept');
    const claimsOfA = await s.listClaims({ sessionId: 'a' });
    const notReleased = await s.releaseClaims('a', claimsOfA, { lastSeenAt: judged.lastSeenAt, owner: judged.owner });
    assert.deepEqual(notReleased, { released: [], notHeld: claimsOfA, changed: true }, 'a conditional release too');
    assert.equal((await s.listClaims({ sessionId: 'a' })).length, 1, 'its claims still kept');
    const current = (await s.getSession('a'))!;
    const ended = await s.endSession('a', 'gc', { lastSeenAt: current.lastSeenAt, owner: current.owner });
    assert.equal(ended?.changed, undefined);
    assert.notEqual(ended?.session.endedAt, null);
    assert.equal(ended?.released.length, 1);
  });

  it('names the sessions holding claims without reading the claims, and lists the claims of several sessions', async () => {
    const s = store();
    for (const id of ['a', 'b', 'c']) await s.insertSession(session(id));
    const lock = (name: string) => ({ scope: REPO, kind: 'lock', name });
    assert.ok((await s.acquireClaims('a', [lock('1'), lock('2')], judge)).ok);
    assert.ok((await s.acquireClaims('c', [lock('3')], judge)).ok);
    assert.deepEqual((await s.claimHolders()).sort(), ['a', 'c']);
    assert.deepEqual(
      (await s.listClaims({ sessionIds: ['a', 'b'] })).map((c) => [c.sessionId, c.name]),
      [
        ['a', '1'],
        ['a', '2'],
      ],
    );
    assert.deepEqual(await s.listClaims({ sessionIds: [] }), []);
    await s.releaseClaims('a', [lock('1'), lock('2')]);
    assert.deepEqual(await s.claimHolders(), ['c']);
  });

  it('a conditional release of a session unchanged since it was judged releases', async () => {
    const s = store();
    const a = await s.insertSession(session('a', DEAD_PID));
    const ref = { scope: REPO, kind: 'lock', name: 'L' };
    await s.acquireClaims('a', [ref], judge);
    const judged = (await s.getSession('a'))!;
    const r = await s.releaseClaims('a', [ref], { lastSeenAt: judged.lastSeenAt, owner: a.owner });
    assert.equal(r.changed, undefined);
    assert.deepEqual(
      r.released.map((c) => c.name),
      ['L'],
    );
    assert.deepEqual(await s.listClaims({ sessionId: 'a' }), []);
  });
}
