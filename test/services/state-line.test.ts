// Waiters of a held state gate get it first come, first served (the gate's line on SQLite:
// store/sqlite/gate-line.ts, services/state/gate-line.ts), and a waiter that dies or gives up in
// line holds nobody up. Real processes on a real store; each waiter's place in line is read from
// the store before the next one starts, so the order the test expects is the order they joined.
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import type { GateLine } from '../../src/store/types.js';
import { node } from '../helpers/env.js';
import { stateWorld as world } from '../helpers/state-world.js';

/** The line of the session's state gate, polled until `ok` holds (the waiters' own signal: their tickets). */
async function lineUntil(home: string, session: string, ok: (line: GateLine) => boolean): Promise<GateLine> {
  const store = SqliteStore.open(join(home, 'lanes.db'));
  try {
    for (;;) {
      const line = await store.line!.readGateLine(`state:${session}`);
      if (ok(line)) return line;
      await new Promise((r) => setTimeout(r, 5));
    }
  } finally {
    await store.close();
  }
}

async function holding(env: Record<string, string>, session: string) {
  const holder = node('state-holder.mjs', [session, '{"order":["holder"]}'], { env });
  await holder.waitFor(/holding/);
  return holder;
}

function waiter(env: Record<string, string>, session: string, name: string, kind: string, timeoutMs?: number) {
  return node('state-appender.mjs', [session, name, kind, ...(timeoutMs ? [String(timeoutMs)] : [])], { env });
}

test('waiters of a held gate get it in the order they came, plain and async alike', { timeout: 60_000 }, async () => {
  const { env, lib, session, home } = await world();
  const holder = await holding(env, session);
  const names = ['w1', 'w2', 'w3', 'w4', 'w5', 'w6'];
  const waiters = [];
  for (const [i, name] of names.entries()) {
    waiters.push(waiter(env, session, name, i % 2 ? 'async' : 'plain'));
    await lineUntil(home, session, (l) => l.issued === i + 1);
  }
  holder.send('go');
  for (const w of waiters) await w.waitFor(/done/);
  assert.deepEqual((await lib.state.get(session)) as object, { order: ['holder', ...names] });
  await lib.close();
});

test('a waiter SIGKILLed in line is skipped: the next one gets the gate', { timeout: 60_000 }, async () => {
  const { env, lib, session, home } = await world();
  const holder = await holding(env, session);
  const first = waiter(env, session, 'w1', 'async');
  await lineUntil(home, session, (l) => l.issued === 1);
  const second = waiter(env, session, 'w2', 'plain');
  await lineUntil(home, session, (l) => l.issued === 2);
  first.proc.kill('SIGKILL');
  await first.exited;
  holder.send('go');
  await second.waitFor(/done/);
  assert.deepEqual((await lib.state.get(session)) as object, { order: ['holder', 'w2'] });
  await lib.close();
});

test('a waiter that gives up leaves the line at once, and changes nothing', { timeout: 60_000 }, async () => {
  const { env, lib, session, home } = await world();
  const holder = await holding(env, session);
  const first = waiter(env, session, 'w1', 'plain', 300);
  await lineUntil(home, session, (l) => l.issued === 1);
  const second = waiter(env, session, 'w2', 'async');
  await lineUntil(home, session, (l) => l.issued === 2);
  await first.waitFor(/failed E_TIMEOUT/);
  assert.equal((await first.exited).code, 5);
  // Its own ticket skipped on the way out, not left for the one behind to skip after the grace.
  const line = await lineUntil(home, session, () => true);
  assert.deepEqual([line.served, line.issued], [1, 2]);
  holder.send('go');
  await second.waitFor(/done/);
  assert.deepEqual((await lib.state.get(session)) as object, { order: ['holder', 'w2'] });
  await lib.close();
});

/**
 * This process served first after the holder, with a waiter (w) behind it: its release keeps the
 * gate (its turn runs, someone waits), as a turn's owner does between two mutates. Kept only while
 * the turn (5 ms) is not due: a release the CPU delays past that frees the gate instead, so the
 * tests below check what must hold either way, and say which case ran.
 */
async function keptAfterOwnMutate(t: TestContext) {
  const { env, lib, session, home } = await world();
  const holder = await holding(env, session);
  const mine = lib.state.mutate(session, async (cur) => ({
    ...(cur as object),
    order: [...(cur as { order: string[] }).order, 'me'],
  }));
  await lineUntil(home, session, (l) => l.issued === 1);
  const w = waiter(env, session, 'w', 'plain');
  await lineUntil(home, session, (l) => l.issued === 2);
  holder.send('go');
  await mine;
  // No turn of the event loop since: the gate is still kept by this process, or already free.
  const held = (await lineUntil(home, session, () => true)).held;
  assert.ok(held === null || held.owner.pid === process.pid, 'nobody else holds it while this turn runs');
  t.diagnostic(held ? 'the gate was kept through the turn' : 'the turn was due before the release: not kept');
  return { lib, session, home, w };
}

test('a gate kept through its turn is freed once the process turns to other work', { timeout: 60_000 }, async (t) => {
  const { lib, session, home, w } = await keptAfterOwnMutate(t);
  await w.waitFor(/done/);
  assert.deepEqual((await lib.state.get(session)) as object, { order: ['holder', 'me', 'w'] });
  assert.equal((await lineUntil(home, session, () => true)).held, null);
  await lib.close();
});

test('close() frees a gate kept through its turn', { timeout: 60_000 }, async (t) => {
  const { lib, session, home, w } = await keptAfterOwnMutate(t);
  await lib.close();
  const line = await lineUntil(home, session, () => true);
  assert.ok(line.held === null || line.held.owner.pid !== process.pid, 'freed by close');
  await w.waitFor(/done/);
  const store = SqliteStore.open(join(home, 'lanes.db'));
  assert.deepEqual(JSON.parse((await store.readState(session))!.value), { order: ['holder', 'me', 'w'] });
  await store.close();
});
