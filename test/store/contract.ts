// The contract every Store backend passes unchanged. A backend's test file is a few lines:
//   storeContract('sqlite', async () => ({ store: SqliteStore.open(file), cleanup }))
// Nothing here may know which backend it talks to. Liveness is the injected judge's business;
// the judge here treats pid 666 as dead so the rules can be tested on any backend.
import { describe, it, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import type { Store } from '../../src/store/types.js';
import type { ResourceRef } from '../../src/core/resource.js';
import { gateOwnerContract } from './contract-gates.js';
import { foldedClaimsContract, startClaimingContract } from './contract-start.js';
import { deadContract, scaleContract } from './contract-scale.js';
import { attentionContract } from './contract-attention.js';
import { touchedContract } from './contract-touched.js';
import { seatsContract } from './contract-seats.js';
import { pagesContract } from './contract-pages.js';
import { journalContract } from './contract-journal.js';
import { journalDamageContract } from './contract-journal-damage.js';
import type { DamageRow } from './journal-damage.js';
import type { MakeStore } from './make-store.js';

export type { MakeStore } from './make-store.js';
import { changesContract } from './contract-changes.js';
import { conversationContract, sessionLifeContract } from './contract-conversation.js';
import { DEAD_PID, judge, session } from './fixtures.js';

const REPO = 'repo:/r/.git';
const ref = (kind: string, name: string, scope = REPO): ResourceRef => ({ kind, name, scope });

export function storeContract(name: string, makeStore: MakeStore): void {
  describe(`Store contract: ${name}`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    let url: string;
    let damage: DamageRow | undefined;
    beforeEach(async () => {
      ({ store, cleanup, url, damage } = await makeStore());
    });
    afterEach(async () => {
      await store.close();
      await cleanup();
    });

    it('stamps sessions with the store clock and refuses duplicate ids', async () => {
      const before = await store.now();
      const s = await store.insertSession(session('a'));
      const after = await store.now();
      assert.ok(s.createdAt >= before && s.createdAt <= after);
      assert.equal(s.lastSeenAt, s.createdAt);
      assert.equal(s.endedAt, null);
      assert.deepEqual((await store.getSession('a'))?.owner, session('a').owner);
      await assert.rejects(store.insertSession(session('a')), /already exists/);
      assert.equal(await store.getSession('nope'), null);
    });

    it('touch refreshes last seen; an ended session cannot be touched', async () => {
      const s = await store.insertSession(session('a'));
      await new Promise((r) => setTimeout(r, 5));
      assert.equal(await store.touchSession('a'), true);
      assert.ok((await store.getSession('a'))!.lastSeenAt > s.lastSeenAt);
      await store.endSession('a', 'done');
      assert.equal(await store.touchSession('a'), false);
      assert.equal(await store.touchSession('unknown'), false);
    });

    it('a live session can move to another worktree and ticket; an ended one cannot', async () => {
      await store.insertSession(session('a'));
      const moved = await store.updateSession('a', { worktree: '/r.lanes/x', ticket: 'SEAT-9' });
      assert.equal(moved?.worktree, '/r.lanes/x');
      assert.equal(moved?.ticket, 'SEAT-9');
      assert.equal(
        (await store.updateSession('a', { worktree: '/elsewhere' }))?.ticket,
        'SEAT-9',
        'fields not given are kept',
      );
      await store.endSession('a', 'x');
      assert.equal(await store.updateSession('a', { ticket: 'T' }), null);
      assert.equal(await store.updateSession('ghost', { ticket: 'T' }), null);
    });

    it('attach registers an agent session once and re-attaches it (resumed, or after its end) to a new owner', async () => {
      const first = await store.attachSession(session('claude-code:abc', 100));
      assert.deepEqual([first.created, first.reopened], [true, false]);
      const again = await store.attachSession({ ...session('claude-code:abc', 200), ticket: null, cwd: '/r/sub' });
      assert.deepEqual([again.created, again.reopened], [false, false]);
      assert.equal(again.session.owner.pid, 200, 'the new owner');
      assert.equal(again.session.cwd, '/r/sub');
      assert.equal(again.session.ticket, 'SEAT-1', 'the ticket is kept');
      assert.equal(again.session.createdAt, first.session.createdAt, 'one record, not a new one');
      await store.endSession('claude-code:abc', 'agent exited');
      const back = await store.attachSession(session('claude-code:abc', 300));
      assert.deepEqual([back.created, back.reopened], [false, true]);
      assert.equal(back.session.endedAt, null);
      assert.equal(back.session.endReason, null);
      assert.equal((await store.listSessions({ includeEnded: false })).length, 1);
    });

    it('ending a session releases all its claims in the same step', async () => {
      await store.insertSession(session('a'));
      await store.acquireClaims('a', [ref('ticket', 'T1'), ref('path', 'src/')], judge);
      const ended = await store.endSession('a', 'bye');
      assert.equal(ended?.released.length, 2);
      assert.equal(ended?.session.endReason, 'bye');
      assert.deepEqual(await store.listClaims(), []);
      assert.equal((await store.listSessions({ includeEnded: false })).length, 0);
      assert.equal((await store.listSessions({ includeEnded: true })).length, 1);
      assert.equal(await store.endSession('zzz', 'x'), null);
    });

    it('tokens increase strictly per resource across release, regrant and takeover', async () => {
      await store.insertSession(session('a'));
      await store.insertSession(session('dead', DEAD_PID));
      const tokens: number[] = [];
      for (let i = 0; i < 3; i++) {
        const r = await store.acquireClaims('a', [ref('ticket', 'T')], judge);
        assert.ok(r.ok);
        tokens.push(r.grants[0]!.token);
        await store.releaseClaims('a', [ref('ticket', 'T')]);
      }
      const d = await store.acquireClaims('dead', [ref('ticket', 'T')], judge);
      assert.ok(d.ok);
      tokens.push(d.grants[0]!.token);
      const t = await store.acquireClaims('a', [ref('ticket', 'T')], judge);
      assert.ok(t.ok);
      assert.equal(t.grants[0]!.takenOver?.claim.sessionId, 'dead');
      tokens.push(t.grants[0]!.token);
      assert.deepEqual(tokens, [1, 2, 3, 4, 5]);
      assert.equal(await store.lastToken(ref('ticket', 'T')), 5);
      assert.equal(await store.lastToken(ref('ticket', 'other')), 0);
    });

    it('a live holder blocks, all-or-nothing; overlapping paths conflict', async () => {
      await store.insertSession(session('a'));
      await store.insertSession(session('b'));
      assert.ok((await store.acquireClaims('a', [ref('path', 'src/billing/')], judge)).ok);
      const r = await store.acquireClaims('b', [ref('ticket', 'FREE'), ref('path', 'src/billing/x.ts')], judge);
      assert.equal(r.ok, false);
      if (!r.ok) {
        assert.equal(r.blockers.length, 1);
        assert.equal(r.blockers[0]!.held.name, 'src/billing/');
        assert.equal(r.blockers[0]!.holder?.id, 'a');
      }
      assert.deepEqual(
        (await store.listClaims({ sessionId: 'b' })).length,
        0,
        'nothing of a failed request is granted',
      );
      assert.ok(
        (await store.acquireClaims('b', [ref('path', 'src/billingX')], judge)).ok,
        'a sibling name does not overlap',
      );
      assert.ok(
        (await store.acquireClaims('b', [ref('path', 'src/billing/', 'repo:/other/.git')], judge)).ok,
        'another repository is another scope',
      );
    });

    it('claims of ended and dead holders never block and are taken over', async () => {
      await store.insertSession(session('ended'));
      await store.insertSession(session('dead', DEAD_PID));
      await store.insertSession(session('b'));
      await store.acquireClaims('ended', [ref('ticket', 'E')], judge);
      await store.acquireClaims('dead', [ref('path', 'lib/')], judge);
      await store.endSession('ended', 'finished');
      const r = await store.acquireClaims('b', [ref('ticket', 'E'), ref('path', 'lib/a.ts')], judge);
      assert.ok(r.ok);
      const lib = r.grants.find((g) => g.ref.kind === 'path');
      assert.equal(lib?.takenOver?.claim.name, 'lib/');
      assert.equal(lib?.takenOver?.session?.id, 'dead');
      const claims = await store.listClaims();
      assert.deepEqual(claims.map((c) => `${c.sessionId}:${c.kind}:${c.name}`).sort(), [
        'b:path:lib/a.ts',
        'b:ticket:E',
      ]);
    });

    it('an ended or unknown session cannot claim', async () => {
      await store.insertSession(session('a'));
      await store.endSession('a', 'x');
      await assert.rejects(store.acquireClaims('a', [ref('ticket', 'T')], judge), { code: 'E_SESSION_ENDED' });
      await assert.rejects(store.acquireClaims('ghost', [ref('ticket', 'T')], judge), { code: 'E_UNKNOWN_SESSION' });
    });

    it('release reports what was not held', async () => {
      await store.insertSession(session('a'));
      await store.insertSession(session('b'));
      await store.acquireClaims('a', [ref('ticket', 'A')], judge);
      const r = await store.releaseClaims('b', [ref('ticket', 'A'), ref('ticket', 'none')]);
      assert.equal(r.released.length, 0);
      assert.equal(r.notHeld.length, 2);
      assert.equal((await store.listClaims({ scopes: [REPO] })).length, 1);
      assert.equal((await store.listClaims({ scopes: ['host:x'] })).length, 0);
    });

    it('dump and load carry sessions, claims with their tokens, fences and state; a non-empty target needs replace; counters never go down', async () => {
      await store.insertSession(session('a'));
      await store.insertSession(session('b'));
      for (let i = 0; i < 2; i++) {
        assert.ok((await store.acquireClaims('a', [ref('ticket', 'T')], judge)).ok);
        if (i === 0) await store.releaseClaims('a', [ref('ticket', 'T')]);
      }
      const g = await store.tryAcquireGate(
        'state:a',
        { owner: { host: 'h', bootId: 'b', pid: 100, startTime: '1' }, sessionId: 'a', command: 'c' },
        10_000,
        judge,
        'a',
      );
      assert.ok(g.acquired);
      await store.releaseGate('state:a', g.acquired ? g.token : 0, 'a', { kind: 'set', value: '{"step":"tests"}' });
      await store.endSession('b', 'done');
      const d = await store.dump();
      const other = await makeStore();
      try {
        await other.store.load(d, { replace: false });
        const copy = await other.store.dump();
        const norm = (x: typeof d) =>
          JSON.stringify({
            ...x,
            fences: [...x.fences].sort((p, q) => p.name.localeCompare(q.name)),
            state: x.state,
            gates: x.gates,
          });
        assert.equal(norm(copy), norm(d));
        assert.equal((await other.store.listClaims())[0]?.token, 2, 'the claim keeps its token');
        assert.equal(await other.store.lastToken(ref('ticket', 'T')), 2);
        assert.equal((await other.store.getSession('b'))?.endReason, 'done');
        assert.equal((await other.store.readState('a'))?.value, '{"step":"tests"}');
        await assert.rejects(other.store.load(d, { replace: false }), { code: 'E_STORE_NOT_EMPTY' });
        // Replacing with a dump whose counters are lower keeps the higher counter: no token is ever granted twice.
        const up = await other.store.acquireClaims('a', [ref('ticket', 'U')], judge);
        assert.ok(up.ok);
        await other.store.load({ ...d, fences: d.fences.map((f) => ({ ...f, lastToken: 1 })) }, { replace: true });
        assert.equal(await other.store.lastToken(ref('ticket', 'T')), 2);
        assert.equal(await other.store.lastToken(ref('ticket', 'U')), 1);
        assert.equal((await other.store.listClaims()).length, 1, 'replace drops what the target held');
        const next = await other.store.acquireClaims('a', [ref('ticket', 'U')], judge);
        assert.ok(next.ok && next.grants[0]!.token === 2);
        const gate = await other.store.tryAcquireGate(
          'state:a',
          { owner: { host: 'h', bootId: 'b', pid: 100, startTime: '1' }, sessionId: 'a', command: 'c' },
          10_000,
          judge,
          'a',
        );
        assert.ok(gate.acquired && g.acquired && gate.token > g.token, 'gate tokens continue too');
      } finally {
        await other.store.close();
        await other.cleanup();
      }
    });

    it('a gate has one holder; release writes state atomically; a taken-over holder is fenced', async () => {
      const live = { owner: { host: 'h', bootId: 'b', pid: 100, startTime: '1' }, sessionId: 's', command: 'cmd' };
      const dead = { ...live, owner: { ...live.owner, pid: DEAD_PID } };
      const first = await store.tryAcquireGate('state:s', live, 10_000, judge, 's');
      assert.ok(first.acquired);
      const second = await store.tryAcquireGate('state:s', live, 10_000, judge, 's');
      assert.equal(second.acquired, false);
      if (!second.acquired) assert.equal(second.holder?.command, 'cmd');
      await store.releaseGate('state:s', first.acquired ? first.token : 0, 's', { kind: 'set', value: '{"n":1}' });
      assert.equal((await store.readState('s'))?.value, '{"n":1}');
      assert.deepEqual(
        (await store.readStates(['s', 'nobody'])).map((r) => r.value),
        ['{"n":1}'],
      );
      assert.deepEqual(await store.readStates([]), []);
      assert.equal(await store.peekGate('state:s'), null);

      const d = await store.tryAcquireGate('state:s', dead, 10_000, judge, 's');
      assert.ok(d.acquired);
      const taker = await store.tryAcquireGate('state:s', live, 10_000, judge, 's');
      assert.ok(taker.acquired && taker.previous?.owner.pid === DEAD_PID);
      assert.equal(taker.acquired && taker.state?.value, '{"n":1}', 'the state is read in the same step');
      await assert.rejects(
        store.releaseGate('state:s', d.acquired ? d.token : 0, 's', { kind: 'set', value: '{"n":99}' }),
        { code: 'E_FENCED' },
      );
      assert.equal((await store.readState('s'))?.value, '{"n":1}', 'a fenced write changes nothing');
      assert.ok(taker.acquired && d.acquired && taker.token > d.token);
      assert.equal(await store.renewGate('state:s', taker.acquired ? taker.token : 0, 10_000), true);
      await store.releaseGate('state:s', taker.acquired ? taker.token : 0, 's', { kind: 'delete' });
      assert.equal(await store.readState('s'), null);
    });

    gateOwnerContract(() => store);
    startClaimingContract(() => store);
    foldedClaimsContract(() => store);
    for (const more of [scaleContract, deadContract]) more(() => store);
    attentionContract(() => store);
    touchedContract(() => store);
    seatsContract(() => store);
    pagesContract(() => store);
    conversationContract(() => store);
    sessionLifeContract(() => store);
    // Both need the URL too: they open a second connection to the same store.
    const urlOf = () => url;
    for (const more of [journalContract, changesContract]) more(() => store, urlOf);
    journalDamageContract(() => ({ store, damage }));
  });
}
