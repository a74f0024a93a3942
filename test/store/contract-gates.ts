// Part of the store contract (contract.ts): what a gate take reports about the session whose state
// it guards. Registered inside storeContract's describe, so every backend runs it unchanged.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { GateHolder, OwnerJudge, Store } from '../../src/store/types.js';

const judge: OwnerJudge = (owner) =>
  owner.pid === 666 ? { live: false, why: 'dead for the test' } : { live: true, why: '' };
const holder = (pid: number): GateHolder => ({
  owner: { host: 'h', bootId: 'b', pid, startTime: '1' },
  sessionId: null,
  command: 'test',
});

export function gateOwnerContract(store: () => Store): void {
  it('a gate take reports, in the same step, whether the guarded session is open, ended or unknown', async () => {
    const s = store();
    await s.insertSession({
      id: 's-g',
      label: null,
      agent: null,
      ticket: null,
      repo: null,
      worktree: null,
      cwd: '/',
      owner: holder(100).owner,
      command: null,
    });
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
    const dead = await take('state:s-g', 's-g', 666); // held by a dead owner, then taken over
    assert.equal(dead.owner, 'ended');
    const over = await take('state:s-g', 's-g');
    assert.equal(over.acquired && over.previous?.owner.pid, 666);
    assert.equal(over.owner, 'ended');
  });
}
