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
