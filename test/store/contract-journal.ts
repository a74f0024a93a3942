// Part of the store contract (contract.ts): the decision journal and the claim waits, on every
// backend unchanged. Registered inside storeContract's describe.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { ResourceRef } from '../../src/core/resource.js';
import type { FollowCursor, JournalEntry } from '../../src/store/journal-types.js';
import type { Store } from '../../src/store/types.js';
import { DEAD_PID, judge, session } from './fixtures.js';
import { node } from '../helpers/env.js';

const REPO = 'repo:/r/.git';
const ref = (kind: string, name: string): ResourceRef => ({ kind, name, scope: REPO });
const owner = (pid: number) => ({ host: 'h', bootId: 'b', pid, startTime: '1' });

export function journalContract(store: () => Store, url: () => string): void {
  it('journals session start, attach, end and claim grant, takeover and release in their own transactions', async () => {
    const s = store();
    const t0 = await s.now();
    await s.insertSession(session('a'));
    await s.insertSession({ ...session('dead', DEAD_PID), ticket: null });
    const first = await s.acquireClaims('dead', [ref('path', 'src/x.ts')], judge);
    assert.ok(first.ok);
    const g = first.grants[0];
    const taken = await s.acquireClaims('a', [ref('path', 'src/x.ts'), ref('ticket', 'SEAT-1')], judge);
    assert.ok(taken.ok);
    const refused = await s.acquireClaims('dead', [ref('ticket', 'SEAT-1')], judge);
    assert.equal(refused.ok, false);
    await s.releaseClaims('a', [ref('ticket', 'SEAT-1')]);
    await s.attachSession(session('a', 101));
    await s.endSession('a', 'finished');
    const entries = await s.readJournal({});
    assert.deepEqual(
      entries.map((e) => [e.kind, e.session, e.subject]),
      [
        ['session.start', 'a', 'a'],
        ['session.start', 'dead', 'dead'],
        ['claim.grant', 'dead', 'path:src/x.ts'],
        ['claim.takeover', 'a', 'path:src/x.ts'],
        ['claim.grant', 'a', 'ticket:SEAT-1'],
        ['claim.release', 'a', 'ticket:SEAT-1'],
        ['session.attach', 'a', 'a'],
        ['session.end', 'a', 'a'],
      ],
      'a refused claim writes nothing; every decision once, in order',
    );
    for (let i = 1; i < entries.length; i++) assert.ok(entries[i]!.seq > entries[i - 1]!.seq, 'sequence only grows');
    const now = await s.now();
    for (const e of entries) {
      assert.ok(e.at >= t0 && e.at <= now, 'the store clock');
      assert.ok(e.host.length > 0);
    }
    const takeover = entries[3]!;
    assert.equal(takeover.details['oldHolder'], 'dead');
    assert.equal(takeover.details['oldToken'], g?.token);
    assert.equal(takeover.details['token'], (g?.token ?? 0) + 1);
    assert.equal(takeover.repo, '/r/.git', 'the repository as sessions name it');
    assert.equal(entries[0]!.repo, '/r/.git');
    assert.equal(entries[4]!.ticket, 'SEAT-1');
    assert.equal(entries[7]!.details['reason'], 'finished');
    assert.deepEqual(
      (entries[7]!.details['released'] as { resource: string }[]).map((r) => r.resource),
      ['path:src/x.ts'],
    );
  });

  it('reads the journal by sequence, time, session, ticket and kind or area, oldest or newest first', async () => {
    const s = store();
    await s.appendJournal([
      {
        kind: 'hook.deny',
        subject: 'path:a',
        session: 's1',
        ticket: 'T-1',
        repo: REPO,
        details: { agent: 'codex', n: 'é🙂' },
      },
      { kind: 'hook.warn', subject: 'path:b', session: 's2', ticket: 'T-2' },
      { kind: 'commit', subject: 'main', session: 's1', ticket: 'T-1' },
      { kind: 'snapshot', subject: 'refs/lanes/x', session: 's2' },
    ]);
    const seqs = (await s.readJournal({})).map((e) => e.seq);
    assert.equal(seqs.length, 4);
    assert.equal(await s.lastJournalSeq(), seqs[3]);
    const subjects = (es: JournalEntry[]) => es.map((e) => e.subject);
    assert.deepEqual(subjects(await s.readJournal({ afterSeq: seqs[1]! })), ['main', 'refs/lanes/x']);
    assert.deepEqual(subjects(await s.readJournal({ session: 's1' })), ['path:a', 'main']);
    assert.deepEqual(subjects(await s.readJournal({ ticket: 'T-2' })), ['path:b']);
    assert.deepEqual(subjects(await s.readJournal({ kinds: ['hook'] })), ['path:a', 'path:b']);
    assert.deepEqual(subjects(await s.readJournal({ kinds: ['hook.warn', 'snapshot'] })), ['path:b', 'refs/lanes/x']);
    assert.deepEqual(subjects(await s.readJournal({ order: 'desc', limit: 2 })), ['refs/lanes/x', 'main']);
    assert.deepEqual(subjects(await s.readJournal({ since: (await s.now()) + 60_000 })), []);
    assert.deepEqual((await s.readJournal({ session: 's1' }))[0]!.details, { agent: 'codex', n: 'é🙂' });
  });

  it('prunes old entries in batches and never reuses a sequence number', async () => {
    const s = store();
    await s.appendJournal(Array.from({ length: 5 }, (_, i) => ({ kind: 'commit' as const, subject: `c${i}` })));
    const first = (await s.readJournal({})).map((e) => e.seq);
    const later = (await s.now()) + 1;
    assert.equal(await s.pruneJournal(later, 2), 2);
    assert.equal(await s.pruneJournal(later, 100), 3);
    assert.equal(await s.pruneJournal(later, 100), 0);
    assert.equal(await s.lastJournalSeq(), first[4], 'the last number is remembered when no entry is left');
    await s.appendJournal([{ kind: 'commit', subject: 'after' }]);
    const [next] = (await s.readJournal({})).map((e) => e.seq);
    assert.ok(next! > first[4]!, 'numbers go on growing after everything was pruned');
    assert.equal(await s.pruneJournal((await s.now()) - 3_600_000, 100), 0, 'recent entries stay');
  });

  it('a follower reading after its last sequence number misses and repeats nothing under concurrent writers (processes)', async () => {
    const start = await store().lastJournalSeq();
    const writers = [0, 1, 2].map((k) => node('journal-writer.mjs', [url(), `w${k}`, '40']));
    await Promise.all(writers.map((w) => w.waitFor(/ready/)));
    const seen: number[] = [];
    let done = false;
    const follower = (async () => {
      let cursor: FollowCursor = { afterSeq: start };
      for (;;) {
        const finished = done;
        const before = cursor.afterSeq;
        const next = await store().followJournal({ kinds: ['session.start'] }, cursor);
        for (const e of next.entries) {
          assert.ok(e.seq > before && e.seq > (seen.at(-1) ?? start), 'in order, no repeats');
          seen.push(e.seq);
        }
        cursor = next.cursor;
        if (finished && cursor.afterSeq === before) return;
        if (next.entries.length === 0) await new Promise((r) => setImmediate(r));
      }
    })();
    for (const w of writers) w.send('go');
    for (const w of writers) assert.equal((await w.exited).code, 0, w.stderr);
    done = true;
    await follower;
    const written = (await store().readJournal({ afterSeq: start, kinds: ['session.start'], limit: 1000 })).map(
      (e) => e.seq,
    );
    assert.equal(written.length, 120, 'three processes, 40 sessions each');
    assert.deepEqual(seen, written, 'every entry once, in order');
  });

  it('records waits, refuses the wait that would close a cycle (of two or three sessions), ignores dead waiters', async () => {
    const s = store();
    for (const id of ['a', 'b', 'c']) await s.insertSession(session(id));
    assert.ok((await s.acquireClaims('a', [ref('ticket', 'A')], judge)).ok);
    assert.ok((await s.acquireClaims('b', [ref('ticket', 'B')], judge)).ok);
    assert.ok((await s.acquireClaims('c', [ref('ticket', 'C')], judge)).ok);
    const ab = await s.registerWait('a', [ref('ticket', 'B')], owner(100), judge);
    assert.ok(ab.ok);
    const bc = await s.registerWait('b', [ref('ticket', 'C')], owner(101), judge);
    assert.ok(bc.ok);
    const ca = await s.registerWait('c', [ref('ticket', 'A')], owner(102), judge);
    assert.equal(ca.ok, false);
    if (!ca.ok)
      assert.deepEqual(
        ca.cycle.map((x) => [x.sessionId, x.resource.name, x.heldBy]),
        [
          ['c', 'A', 'a'],
          ['a', 'B', 'b'],
          ['b', 'C', 'c'],
        ],
      );
    assert.deepEqual(
      (await s.listWaits()).map((w) => w.sessionId),
      ['a', 'b'],
      'the refused wait was not recorded',
    );
    // A waiter whose process is gone does not count.
    await s.endWait(bc.ok ? bc.wait.id : 0);
    assert.ok((await s.registerWait('b', [ref('ticket', 'C')], owner(DEAD_PID), judge)).ok);
    assert.ok(
      (await s.registerWait('c', [ref('ticket', 'A')], owner(103), judge)).ok,
      'the dead waiter closes no cycle',
    );
    const kinds = (await s.readJournal({ kinds: ['claim.wait', 'claim.cycle'] })).map((e) => [
      e.kind,
      e.session,
      e.ticket,
    ]);
    assert.deepEqual(kinds, [
      ['claim.wait', 'a', 'SEAT-1'],
      ['claim.wait', 'b', 'SEAT-1'],
      ['claim.cycle', 'c', 'SEAT-1'],
      ['claim.wait', 'b', 'SEAT-1'],
      ['claim.wait', 'c', 'SEAT-1'],
    ]);
  });

  it('a waiter re-checking finds a cycle closed by a claim made while it waited, and only one of two is refused', async () => {
    const s = store();
    for (const id of ['a', 'b']) await s.insertSession(session(id));
    assert.ok((await s.acquireClaims('b', [ref('ticket', 'B')], judge)).ok);
    const a = await s.registerWait('a', [ref('ticket', 'B')], owner(100), judge);
    const b = await s.registerWait('b', [ref('ticket', 'A')], owner(101), judge);
    assert.ok(a.ok && b.ok, 'no cycle yet: nobody holds A');
    assert.equal(await s.checkWait(a.wait.id, judge), null);
    // Another process of session a takes A while a waits for B: now a and b wait for each other.
    assert.ok((await s.acquireClaims('a', [ref('ticket', 'A')], judge)).ok);
    const first = await s.checkWait(b.wait.id, judge);
    assert.deepEqual(
      first?.map((x) => x.sessionId),
      ['b', 'a'],
    );
    assert.equal(await s.checkWait(a.wait.id, judge), null, 'the cycle is broken: the other waiter goes on');
    assert.deepEqual(
      (await s.listWaits()).map((w) => w.sessionId),
      ['a'],
    );
    assert.equal(await s.checkWait(b.wait.id, judge), null, 'a wait that is gone');
  });
}
