// Part of the store contract (contract.ts): one agent, one session. An agent's own session id bound
// to the run lanes launched it in (store/types.ts bindConversation), found by it while the run is
// open; bound only while the run's conversation is what the caller decided on; the binding
// journaled; the parent and the task of a session kept as written; on every backend.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { Store } from '../../src/store/types.js';
import { session } from './fixtures.js';

export function conversationContract(store: () => Store): void {
  it('bindConversation binds an agent session to an open run, compare-and-set; sessionByConversation finds open ones only', async () => {
    const s = store();
    await s.insertSession({ ...session('run'), command: 'claude', task: 'fix the cart' });
    await s.insertSession({ ...session('sub'), parent: 'run' });
    assert.equal(await s.sessionByConversation('claude-code:c1'), null);
    const bound = await s.bindConversation('run', {
      conversation: 'claude-code:c1',
      pid: 42,
      agent: 'claude-code',
      expected: null,
    });
    assert.equal(bound?.conversation, 'claude-code:c1');
    assert.equal(bound?.conversationPid, 42);
    assert.equal((await s.sessionByConversation('claude-code:c1'))?.id, 'run');
    // Someone else bound it meanwhile: the caller's decision is stale, nothing is written.
    assert.equal(
      await s.bindConversation('run', { conversation: 'claude-code:c2', pid: 43, agent: null, expected: null }),
      null,
    );
    assert.equal((await s.getSession('run'))?.conversation, 'claude-code:c1');
    // A /clear: the same agent binds its new conversation.
    const again = await s.bindConversation('run', {
      conversation: 'claude-code:c2',
      pid: 42,
      agent: null,
      expected: 'claude-code:c1',
    });
    assert.equal(again?.conversation, 'claude-code:c2');
    assert.equal(again?.agent, 'test', 'an agent already named stays');
    assert.equal(await s.sessionByConversation('claude-code:c1'), null);
    const entries = (await s.readJournal({})).filter((e) => e.kind === 'session.attach' && e.session === 'run');
    assert.deepEqual(
      entries.map((e) => [e.details['conversation'], e.details['before'] ?? null]),
      [
        ['claude-code:c1', null],
        ['claude-code:c2', 'claude-code:c1'],
      ],
    );
    const read = await s.getSession('sub');
    assert.equal(read?.parent, 'run');
    assert.equal((await s.getSession('run'))?.task, 'fix the cart');
    // Ended: found no more, and no binding to it.
    await s.endSession('run', 'done');
    assert.equal(await s.sessionByConversation('claude-code:c2'), null);
    assert.equal(
      await s.bindConversation('run', {
        conversation: 'claude-code:c3',
        pid: 42,
        agent: null,
        expected: 'claude-code:c2',
      }),
      null,
    );
    assert.equal(await s.bindConversation('nope', { conversation: 'x:y', pid: 1, agent: null, expected: null }), null);
  });
}

export function sessionLifeContract(store: () => Store): void {
  it('a death is recorded once with its entry; setup state moves by compare-and-set; slugs are unique among due teardowns; a dump keeps it all', async () => {
    const s = store();
    for (const id of ['d1', 'd2', 'd3'])
      await s.insertSession({ ...session(id), task: `task of ${id}`, parent: id === 'd3' ? 'd1' : null });
    assert.equal(await s.recordDied('d1', 'killed by SIGKILL', { snapshot: 'refs/x' }), true);
    assert.equal(await s.recordDied('d1', 'again', {}), false, 'once');
    assert.equal((await s.getSession('d1'))?.died, 'killed by SIGKILL');
    const died = (await s.readJournal({})).filter((e) => e.kind === 'session.died');
    assert.deepEqual(
      died.map((e) => [e.session, e.details['how'], e.details['snapshot']]),
      [['d1', 'killed by SIGKILL', 'refs/x']],
    );
    // Setup: null -> done -> tearing, never twice.
    assert.equal(await s.setSetupState('d1', null, 'done'), true);
    assert.equal(await s.setSetupState('d1', null, 'done'), false);
    assert.equal(await s.allocateEnvSlug('d1', 'shop-1'), 'shop-1');
    assert.equal(await s.allocateEnvSlug('d2', 'shop-1'), 'shop-1-2', "d1's teardown is due: shop-1 is its");
    await s.setSetupState('d2', null, 'done');
    assert.equal(await s.allocateEnvSlug('d3', 'shop-1'), 'shop-1-3', 'both due');
    assert.equal(await s.allocateEnvSlug('d1', 'other'), 'shop-1', 'kept once given');
    assert.deepEqual((await s.teardownsDue()).map((x) => x.id).sort(), ['d1', 'd2']);
    assert.equal(await s.passSetup('d1', 'd3'), true);
    assert.equal((await s.getSession('d1'))?.setupState, 'passed');
    assert.equal((await s.getSession('d3'))?.envSlug, 'shop-1');
    assert.equal(await s.passSetup('d1', 'd3'), false, 'nothing due any more');
    const dump = await s.dump();
    await s.load(dump, { replace: true });
    const back = await s.getSession('d3');
    assert.deepEqual(
      [back?.task, back?.parent, back?.setupState, back?.envSlug, (await s.getSession('d1'))?.died],
      ['task of d3', 'd1', 'done', 'shop-1', 'killed by SIGKILL'],
    );
  });
}
