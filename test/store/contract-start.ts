// Part of the store contract (contract.ts): a session registered with its ticket claim in one
// transaction (`lanes start --ticket`), all or nothing, on every backend.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { ResourceRef } from '../../src/core/resource.js';
import type { Store } from '../../src/store/types.js';
import { DEAD_PID, judge, session } from './fixtures.js';

const ticket = (name: string): ResourceRef => ({ kind: 'ticket', name, scope: 'repo:/r/.git' });

export function startClaimingContract(store: () => Store): void {
  it('insertSessionClaiming registers the session with its claim, or nothing when a live session holds it', async () => {
    const s = store();
    const first = await s.insertSessionClaiming(session('a'), [ticket('T')], judge);
    assert.ok(first.ok);
    assert.equal(first.session.id, 'a');
    assert.equal(first.grants[0]?.token, 1);
    const refused = await s.insertSessionClaiming(session('b'), [ticket('T')], judge);
    assert.equal(refused.ok, false);
    if (!refused.ok) assert.equal(refused.blockers[0]?.held.sessionId, 'a');
    assert.equal(await s.getSession('b'), null, 'the refused session was not registered');
    const kinds = (await s.readJournal({})).map((e) => `${e.session}:${e.kind}`);
    assert.deepEqual(kinds, ['a:session.start', 'a:claim.grant'], 'nothing of the refused start is journaled');
    // Its id stays free: the same id registers once the ticket is free.
    await s.endSession('a', 'done');
    const again = await s.insertSessionClaiming(session('b'), [ticket('T')], judge);
    assert.ok(again.ok);
    assert.equal(again.grants[0]?.token, 2);
  });

  it('insertSessionClaiming takes the ticket over from a dead holder, and refuses an id that exists', async () => {
    const s = store();
    await s.insertSession(session('dead', DEAD_PID));
    assert.ok((await s.acquireClaims('dead', [ticket('D')], judge)).ok);
    const heir = await s.insertSessionClaiming(session('heir'), [ticket('D')], judge);
    assert.ok(heir.ok);
    assert.equal(heir.grants[0]?.takenOver?.session?.id, 'dead');
    await assert.rejects(s.insertSessionClaiming(session('heir'), [ticket('E')], judge), /already exists/);
    assert.deepEqual(
      (await s.listClaims()).map((c) => `${c.sessionId}:${c.name}`),
      ['heir:D'],
      'nothing claimed for the duplicate',
    );
  });
}

/** Case-folded path claims (a repository on a case-insensitive file system), on every backend. */
export function foldedClaimsContract(store: () => Store): void {
  const path = (name: string, fold = false): ResourceRef => ({
    kind: 'path',
    name,
    scope: 'repo:/r/.git',
    ...(fold ? { fold: true as const } : {}),
  });
  it('a folded path conflicts with a claim in another spelling; the stored spelling stays', async () => {
    const s = store();
    await s.insertSession(session('a'));
    await s.insertSession(session('b'));
    assert.ok((await s.acquireClaims('a', [path('src/billing/')], judge)).ok);
    assert.ok((await s.acquireClaims('b', [path('src/Billing/x.ts')], judge)).ok, 'case-sensitive: two names');
    await s.releaseClaims('b', [path('src/Billing/x.ts')]);
    const r = await s.acquireClaims('b', [path('src/Billing/x.ts', true)], judge);
    assert.equal(r.ok, false);
    if (!r.ok) assert.equal(r.blockers[0]?.held.name, 'src/billing/');
    const found = await s.conflictingClaims([path('SRC/BILLING/y.ts', true)]);
    assert.deepEqual(
      found.map((c) => c.name),
      ['src/billing/'],
    );
  });
}
