// Part of the store contract (contract.ts): the change mark a watcher (the dashboard) compares
// instead of reading the store again. Nothing written: the same mark. Every change a watcher shows
// moves it, made through another connection (another process, on SQLite data_version's business)
// or through the watcher's own: a journaled one moves the journal part; one no entry records (a
// heartbeat, attention, a death recorded, a session moved, a wait ended) moves the fleet part.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { ResourceRef } from '../../src/core/resource.js';
import { openStore } from '../../src/store/open.js';
import type { ChangeMark, Store } from '../../src/store/types.js';
import { DEAD_PID, judge, session } from './fixtures.js';

const ref = (kind: string, name: string): ResourceRef => ({ kind, name, scope: 'repo:/r/.git' });
const owner = { host: 'h', bootId: 'b', pid: 100, startTime: '1' };
// A change of a time stamp needs the store's clock to move (milliseconds).
const tick = () => new Promise((r) => setTimeout(r, 3));

export function changesContract(store: () => Store, url: () => string): void {
  it('the change mark stands still while nothing is written and moves with every change a watcher shows', async () => {
    const watcher = store();
    const other = await openStore(url());
    try {
      await watcher.insertSession(session('a'));
      await watcher.insertSession(session('b'));
      let last = await watcher.changeMark();
      const again = await watcher.changeMark();
      assert.deepEqual([again.journal, again.fleet], [last.journal, last.fleet], 'nothing written: the same mark');
      assert.ok(again.now >= last.now, 'the store clock');
      const moves = async (what: string, change: () => Promise<unknown>, part: 'journal' | 'fleet') => {
        await tick();
        await change();
        const next: ChangeMark = await watcher.changeMark();
        assert.notEqual(next[part], last[part], `${what}: the ${part} part moved`);
        last = next;
      };
      // Journaled, from another connection.
      await moves('a session started', () => other.insertSession(session('c')), 'journal');
      await moves('a claim granted', () => other.acquireClaims('a', [ref('path', 'src/x.ts')], judge), 'journal');
      await moves('a claim released', () => other.releaseClaims('a', [ref('path', 'src/x.ts')]), 'journal');
      await moves('a hook deny', () => other.appendJournal([{ kind: 'hook.deny', subject: 'path:x' }]), 'journal');
      // Not journaled, from another connection.
      await moves('a heartbeat', () => other.touchSession('a'), 'fleet');
      await moves('attention without an entry', () => other.setAttention('a', 'waiting', 'a prompt'), 'fleet');
      await moves('attention cleared by activity', () => other.touchSession('a', 60_000, true), 'fleet');
      await moves('a session moved', () => other.updateSession('b', { terminal: 'tmux x' }), 'fleet');
      await other.insertSession(session('dead', DEAD_PID));
      const dead = (await other.getSession('dead'))!;
      await watcher.changeMark().then((m) => (last = m));
      await moves(
        'a death recorded',
        () => other.recordDead([{ id: 'dead', lastSeenAt: dead.lastSeenAt, owner: dead.owner, why: 'gone' }]),
        'fleet',
      );
      await other.acquireClaims('c', [ref('ticket', 'T')], judge);
      const wait = await other.registerWait('b', [ref('ticket', 'T')], owner, judge);
      assert.ok(wait.ok);
      await watcher.changeMark().then((m) => (last = m));
      await moves('a wait ended', () => other.endWait(wait.ok ? wait.wait.id : 0), 'fleet');
      // The watcher's own writes move it too.
      await moves('its own heartbeat', () => watcher.touchSession('b'), 'fleet');
      await moves('its own entry', () => watcher.appendJournal([{ kind: 'hook.warn', subject: 'path:y' }]), 'journal');
      // Without the fleet part: null, and the journal part as exact.
      const lean = await watcher.changeMark({ fleet: false });
      assert.equal(lean.fleet, null);
      assert.equal(lean.journal, last.journal);
      await other.appendJournal([{ kind: 'hook.deny', subject: 'path:z' }]);
      assert.notEqual((await watcher.changeMark({ fleet: false })).journal, last.journal);
    } finally {
      await other.close();
    }
  });
}
