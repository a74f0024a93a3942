// Part of the store contract (contract.ts): a session's attention (store/types.ts Attention), set
// only on a change and journaled with it, cleared by the agent working again, on every backend.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { JournalInput } from '../../src/store/journal-types.js';
import type { Store } from '../../src/store/types.js';
import { session } from './fixtures.js';

const entry = (id: string, state: string): JournalInput => ({
  kind: 'attention',
  subject: id,
  session: id,
  details: { state },
});

export function attentionContract(store: () => Store): void {
  it('setAttention writes a change only, with its journal entry; working again clears waiting and finished', async () => {
    const s = store();
    await s.insertSession(session('a'));
    const set = await s.setAttention('a', 'waiting', 'may I run npm test?', entry('a', 'waiting'));
    assert.equal(set.changed, true);
    assert.equal(set.session?.attention?.state, 'waiting');
    assert.equal(set.session?.attention?.why, 'may I run npm test?');
    assert.ok(set.session!.attention!.at > 0);
    // The same state again (another hook telling the same prompt): nothing written, nothing journaled.
    const again = await s.setAttention('a', 'waiting', 'idle', entry('a', 'waiting'));
    assert.equal(again.changed, false);
    assert.equal(again.session?.attention?.why, 'may I run npm test?', 'the first words stay');
    assert.equal((await s.readJournal({})).filter((e) => e.kind === 'attention').length, 1);
    // A plain heartbeat (the status line, a lanes command) leaves it; the agent working clears it,
    // even within the lease's freshness (no skipped write while something is shown).
    assert.equal(await s.touchSession('a', 60_000), true);
    assert.equal((await s.getSession('a'))!.attention?.state, 'waiting');
    assert.equal(await s.touchSession('a', 60_000, true), true);
    assert.equal((await s.getSession('a'))!.attention, null);
    // denied stays through work; the turn's end replaces it.
    await s.setAttention('a', 'denied', 'src/x held by b');
    await s.touchSession('a', 60_000, true);
    assert.equal((await s.getSession('a'))!.attention?.state, 'denied');
    assert.equal((await s.setAttention('a', 'finished', null)).session?.attention?.state, 'finished');
    await s.touchSession('a', 0, true);
    assert.equal((await s.getSession('a'))!.attention, null);
    // Cleared explicitly; an ended or unknown session is never changed.
    await s.setAttention('a', 'waiting', null);
    assert.equal((await s.setAttention('a', null, null)).changed, true);
    assert.equal((await s.getSession('a'))!.attention, null);
    await s.endSession('a', 'done');
    assert.equal((await s.setAttention('a', 'waiting', null, entry('a', 'waiting'))).changed, false);
    assert.equal((await s.setAttention('nobody', 'waiting', null)).changed, false);
    assert.equal((await s.readJournal({})).filter((e) => e.kind === 'attention').length, 1);
  });

  it('one prompt told by several hooks at once is one change', async () => {
    const s = store();
    await s.insertSession(session('a'));
    const results = await Promise.all(
      Array.from({ length: 8 }, () => s.setAttention('a', 'waiting', 'prompt', entry('a', 'waiting'))),
    );
    assert.equal(results.filter((r) => r.changed).length, 1);
    assert.equal((await s.readJournal({})).filter((e) => e.kind === 'attention').length, 1);
  });
}
