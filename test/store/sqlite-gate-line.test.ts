// The line in front of a gate on SQLite (store/sqlite/gate-line.ts), step by step on a real store
// file: who may enter while others wait, how a turn starts, is claimed and ends, and how a ticket
// whose waiter is gone is skipped. The waiting itself (processes in line) is test/services/state-line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import type { GateLineStore, GateTurn, Store } from '../../src/store/types.js';
import { tmp } from '../helpers/env.js';
import { DEAD_PID, holder, judge, session } from './fixtures.js';

const GATE = 'state:s';
const turn = (ticket: number | null, graceMs = 10_000): GateTurn => ({ ticket, quantumMs: 5_000, graceMs });

async function world(): Promise<{ store: Store; line: GateLineStore }> {
  const store = SqliteStore.open(join(tmp(), 'lanes.db'));
  await store.insertSession(session('s'));
  return { store, line: store.line! };
}

async function join_(line: GateLineStore, graceMs = 10_000): Promise<number> {
  const got = await line.joinGateLine(GATE, graceMs);
  assert.notEqual(got, 'locked');
  return (got as { ticket: number }).ticket;
}

async function take(store: Store, ticket: number | null, pid = 100) {
  return store.tryAcquireGate(GATE, holder(pid), 10_000, judge, 's', turn(ticket));
}

async function takeAndRelease(store: Store, ticket: number | null): Promise<boolean> {
  const got = await take(store, ticket);
  if (got.acquired) await store.releaseGate(GATE, got.token, 's', { kind: 'keep' });
  return got.acquired;
}

test('a first ticket makes the gate row, free with token 0; tickets count up', async () => {
  const { store, line } = await world();
  assert.equal(await join_(line), 1);
  assert.equal(await store.peekGate(GATE), null, 'joining takes nothing');
  assert.equal((await store.dump()).gates.find((g) => g.name === GATE)?.token, 0);
  assert.equal(await join_(line), 2);
  const seen = await line.readGateLine(GATE);
  assert.deepEqual([seen.issued, seen.served, seen.held], [2, 0, null]);
  const taken = await take(store, 1);
  assert.ok(taken.acquired && taken.token === 1, 'the first take after the line made the row is token 1');
  await store.close();
});

test('while someone waits only the next ticket enters; its turn runs until the next one claims it', async () => {
  const { store, line } = await world();
  const [a, b] = [await join_(line), await join_(line)];
  assert.equal(await takeAndRelease(store, null), false, 'nobody barges past the line');
  const step = (ticket: number | null) =>
    store.stepGate!(GATE, holder(100), 10_000, 's', () => ({ kind: 'apply', change: { kind: 'keep' } }), turn(ticket));
  assert.equal((await step(null)).kind, 'queued');
  assert.equal(await takeAndRelease(store, b), false, 'the second in line waits for the first');
  assert.equal(await takeAndRelease(store, a), true, 'the first in line enters');
  const served = await line.readGateLine(GATE);
  assert.equal(served.served, a);
  assert.ok(served.turnEnd > served.now, 'its turn is running');
  assert.equal(await takeAndRelease(store, a), true, 'and goes on while the turn runs');
  assert.equal((await step(a)).kind, 'applied', 'a one-step change enters within the turn too');
  assert.equal(await line.claimGateTurn(GATE, a, 10_000), false, 'only the next in line claims a turn');
  assert.equal(await line.claimGateTurn(GATE, b, 10_000), true);
  const claimed = await line.readGateLine(GATE);
  assert.ok(claimed.claimUntil > claimed.now);
  assert.equal(await takeAndRelease(store, a), false, 'the owner of a claimed turn enters no more');
  assert.equal((await step(a)).kind, 'queued');
  // A claim that is not renewed lapses: the owner goes on (the next in line is not there to enter).
  assert.equal(await line.claimGateTurn(GATE, b, 0), true);
  const lapsing = (await line.readGateLine(GATE)).claimUntil;
  while ((await store.now()) <= lapsing) await new Promise((r) => setImmediate(r));
  assert.equal(await takeAndRelease(store, a), true, 'a lapsed claim lets the owner go on');
  assert.equal(await line.claimGateTurn(GATE, b, 10_000), true);
  assert.equal((await step(b)).kind, 'applied', 'the next in line enters by a one-step change');
  const after = await line.readGateLine(GATE);
  assert.deepEqual([after.issued, after.served], [2, 2]);
  assert.equal(await takeAndRelease(store, null), true, 'nobody waits: anyone enters');
  await store.close();
});

test('a held gate is left to its holder; a dead holder is taken over only by whoever the line lets in', async () => {
  const { store, line } = await world();
  const dead = await take(store, null, DEAD_PID);
  assert.ok(dead.acquired);
  const t = await join_(line);
  const barger = await take(store, null);
  assert.equal(barger.acquired, false, 'a dead holder is no way past the line');
  assert.equal(!barger.acquired && barger.holder?.owner.pid, DEAD_PID, 'the refusal names the holder');
  const over = await take(store, t);
  assert.ok(over.acquired && over.previous?.owner.pid === DEAD_PID, 'the first in line takes it over');
  assert.equal((await line.readGateLine(GATE)).served, t);
  await store.close();
});

test('a ticket is skipped when its waiter stops waiting, or lets its deadline pass; kept while it renews', async () => {
  const { store, line } = await world();
  const held = await take(store, null);
  assert.ok(held.acquired);
  const [a, b] = [await join_(line, 0), await join_(line)];
  assert.equal(await line.skipGateHead(GATE, b, 10_000, false), false, 'only the first in line is skipped');
  // The first in line keeps its place while it renews (a gate held a long time)...
  assert.equal(await line.keepGateHead(GATE, a, 10_000), true);
  assert.equal(await line.keepGateHead(GATE, b, 10_000), false, 'only the first in line renews');
  assert.equal(await line.skipGateHead(GATE, a, 10_000, false), false, 'a renewed deadline holds');
  // ...and is skipped once its deadline passed (its waiter died), whatever the gate.
  assert.equal(await line.keepGateHead(GATE, a, 0), true);
  const deadline = (await line.readGateLine(GATE)).headDeadline;
  while ((await store.now()) <= deadline) await new Promise((r) => setImmediate(r));
  assert.equal(await line.skipGateHead(GATE, a, 10_000, false), true);
  const seen = await line.readGateLine(GATE);
  assert.deepEqual([seen.served, seen.turnEnd], [a, 0], 'skipped, and no turn runs');
  // A waiter that stops waiting skips its own ticket at once.
  assert.equal(await line.skipGateHead(GATE, b, 10_000, true), true);
  assert.equal((await line.readGateLine(GATE)).served, b);
  assert.equal(await line.skipGateHead(GATE, b, 10_000, true), false, 'nobody is left to skip');
  await store.releaseGate(GATE, held.acquired ? held.token : 0, 's', { kind: 'keep' });
  assert.equal(await takeAndRelease(store, null), true, 'an empty line lets anyone in');
  await store.close();
});

test('a deadline further ahead than two graces (a clock stepped back) is skippable', async () => {
  const { store, line } = await world();
  const a = await join_(line, 1_000_000);
  await join_(line);
  assert.equal(await line.skipGateHead(GATE, a, 100, false), true);
  await store.close();
});
