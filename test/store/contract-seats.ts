// Part of the store contract (contract.ts): seats (store/seat-types.ts) on every backend: added
// once per host and name with their journal entry, listed per host or for all, exhausted only
// forward in time, restored, removed.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { Store } from '../../src/store/types.js';
import type { NewSeat } from '../../src/store/seat-types.js';

const seat = (name: string, host = 'h1', over: Partial<NewSeat> = {}): NewSeat => ({
  host,
  name,
  agent: 'claude-code',
  pool: 'claude-code',
  env: { CLAUDE_CONFIG_DIR: `/home/u/.claude-${name}` },
  concurrency: 1,
  payPerUse: false,
  ...over,
});
const entry = (kind: 'seat.add' | 'seat.remove' | 'seat.exhausted' | 'seat.restore', subject: string) => ({
  kind,
  subject,
});

export function seatsContract(store: () => Store): void {
  it('seats: one per host and name, each change journaled with it; exhausted only forward in time', async () => {
    const s = store();
    const odd = 'max-1 "ü" \\ \n2';
    const a = await s.addSeat(
      seat('a', 'h1', { env: { CLAUDE_CONFIG_DIR: odd }, concurrency: 3 }),
      entry('seat.add', 'a'),
    );
    assert.ok(a);
    assert.deepEqual(
      [a.host, a.name, a.agent, a.pool, a.env, a.concurrency, a.payPerUse, a.exhaustedUntil],
      ['h1', 'a', 'claude-code', 'claude-code', { CLAUDE_CONFIG_DIR: odd }, 3, false, null],
    );
    assert.ok(a.createdAt > 0);
    assert.equal(await s.addSeat(seat('a'), entry('seat.add', 'a')), null, 'a second seat a on h1');
    assert.ok(
      await s.addSeat(seat('a', 'h2', { agent: 'codex', pool: 'codex', payPerUse: true }), entry('seat.add', 'a')),
    );
    assert.ok(await s.addSeat(seat('b'), entry('seat.add', 'b')));
    assert.deepEqual(
      (await s.listSeats('h1')).map((x) => x.name),
      ['a', 'b'],
    );
    assert.deepEqual(
      (await s.listSeats(null)).map((x) => `${x.host}/${x.name}/${x.payPerUse}`),
      ['h1/a/false', 'h1/b/false', 'h2/a/true'],
    );
    const now = await s.now();
    const first = await s.exhaustSeat('h1', 'a', now + 60_000, 'rate_limit', entry('seat.exhausted', 'a'));
    assert.equal(first.changed, true);
    assert.equal(first.seat?.exhaustedUntil, now + 60_000);
    assert.equal(first.seat?.exhaustedWhy, 'rate_limit');
    assert.ok((first.seat?.exhaustedAt ?? 0) >= now);
    // The same limit reported again, or an earlier reset: no change, nothing journaled.
    assert.equal((await s.exhaustSeat('h1', 'a', now + 60_000, 'again', entry('seat.exhausted', 'a'))).changed, false);
    assert.equal((await s.exhaustSeat('h1', 'a', now + 1_000, 'earlier', entry('seat.exhausted', 'a'))).changed, false);
    const later = await s.exhaustSeat('h1', 'a', now + 90_000, 'billing_error', entry('seat.exhausted', 'a'));
    assert.deepEqual(
      [later.changed, later.seat?.exhaustedUntil, later.seat?.exhaustedWhy],
      [true, now + 90_000, 'billing_error'],
    );
    assert.deepEqual(await s.exhaustSeat('h1', 'nobody', now, 'x', entry('seat.exhausted', 'nobody')), {
      changed: false,
      seat: null,
    });
    assert.equal((await s.listSeats('h2'))[0]?.exhaustedUntil, null, "h2's seat a is another seat");
    assert.equal(await s.restoreSeat('h1', 'a', entry('seat.restore', 'a')), true);
    assert.equal(await s.restoreSeat('h1', 'a', entry('seat.restore', 'a')), false);
    assert.equal((await s.listSeats('h1'))[0]?.exhaustedUntil, null);
    assert.equal(await s.removeSeat('h1', 'b', entry('seat.remove', 'b')), true);
    assert.equal(await s.removeSeat('h1', 'b', entry('seat.remove', 'b')), false);
    const kinds = (await s.readJournal({ limit: 100 })).map((e) => `${e.kind} ${e.subject}`);
    assert.deepEqual(kinds, [
      'seat.add a',
      'seat.add a',
      'seat.add b',
      'seat.exhausted a',
      'seat.exhausted a',
      'seat.restore a',
      'seat.remove b',
    ]);
  });
}
