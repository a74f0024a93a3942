// Part of the store contract (contract.ts): what a gate take reports about the session whose state
// it guards. Registered inside storeContract's describe, so every backend runs it unchanged.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { Store } from '../../src/store/types.js';
import { DEAD_PID, holder, judge, session } from './fixtures.js';

export function gateOwnerContract(store: () => Store): void {
  it('a gate take reports, in the same step, whether the guarded session is open, ended or unknown', async () => {
    const s = store();
    await s.insertSession(session('s-g'));
    const take = async (name: string, stateOf: string | null, pid = 100) => {
      const g = await s.tryAcquireGate(name, holder(pid), 10_000, judge, stateOf);
      assert.ok(g.acquired, `${name} taken`);
      return g;
    };
    const first = await take('state:s-g', 's-g'); // a new gate: its row is created
    assert.equal(first.owner, 'open');
    await s.releaseGate('state:s-g', first.token, 's-g', { kind: 'keep' });
    const again = await take('state:s-g', 's-g'); // a free gate: one statement
    assert.equal(again.owner, 'open');
    await s.releaseGate('state:s-g', again.token, 's-g', { kind: 'keep' });
    const nobody = await take('state:nobody', 'nobody');
    assert.equal(nobody.owner, 'unknown');
    await s.releaseGate('state:nobody', nobody.token, 'nobody', { kind: 'keep' });
    assert.equal((await take('plain', null)).owner, null, 'no session state guarded: nothing to report');
    await s.endSession('s-g', 'done');
    const dead = await take('state:s-g', 's-g', DEAD_PID); // held by a dead owner, then taken over
    assert.equal(dead.owner, 'ended');
    const over = await take('state:s-g', 's-g');
    assert.equal(over.acquired && over.previous?.owner.pid, DEAD_PID);
    assert.equal(over.owner, 'ended');
  });
}
