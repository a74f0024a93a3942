import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stateWorld as world } from '../helpers/state-world.js';

// How far a mutate function's frame reaches (src/services/state/state-frames.ts): an async function's
// through its awaits, a plain function's for its synchronous run, and never past its mutate.

test(
  "a plain mutate function's frame covers its synchronous run: a clear from inside it is refused",
  { timeout: 10_000 },
  async () => {
    const { lib, session } = await world();
    let inner: Promise<boolean> | undefined;
    await lib.state.mutate(session, () => {
      inner = lib.state.clear(session, { timeoutMs: 3000 });
      return { kept: true };
    });
    await assert.rejects(inner!, (e: Error & { code?: string }) => e.code === 'E_CLEAR_IN_MUTATE');
    assert.deepEqual(await lib.state.get(session), { kept: true }, 'the clear must not have undone the write');
    await lib.close();
  },
);

test(
  'a nested mutate inside a plain function applies at once: the outer write includes it',
  { timeout: 10_000 },
  async () => {
    const { lib, session } = await world();
    const outer = await lib.state.mutate(session, () => {
      void lib.state.mutate(session, (c) => ({ ...(c as object), inner: true }));
      return undefined; // keep the frame's value, with the nested change
    });
    assert.deepEqual(outer, { inner: true });
    assert.deepEqual(await lib.state.get(session), { inner: true }, 'what mutate returned is what was stored');
    await lib.close();
  },
);

test(
  'code a mutate left running is outside its frame once it returns, even while another async frame is open',
  { timeout: 10_000 },
  async () => {
    const { lib, session } = await world();
    const other = (await lib.sessions.start({ pid: process.pid, label: 'other' })).id;
    let go = (): void => undefined;
    const signal = new Promise<void>((r) => (go = r));
    let late: Promise<unknown> | undefined;
    await lib.state.mutate(session, async () => {
      // Not awaited: runs on after this mutate has written.
      late = signal.then(() => lib.state.mutate(session, (c) => ({ ...(c as object), late: true })));
      return { n: 1 };
    });
    // Another async frame open meanwhile (of another session) re-enables the frame storage, which
    // shows the late code its old frame again: joining it would change a frame nobody writes.
    let release = (): void => undefined;
    let entered = (): void => undefined;
    const inside = new Promise<void>((r) => (entered = r));
    const holding = lib.state.mutate(other, async () => {
      entered();
      await new Promise<void>((r) => (release = r));
      return { other: true };
    });
    await inside;
    go();
    await late;
    release();
    await holding;
    assert.deepEqual(await lib.state.get(session), { n: 1, late: true });
    assert.deepEqual(await lib.state.get(other), { other: true });
    await lib.close();
  },
);

test(
  'an async mutate started inside a plain one outlives its frame: its nested write of the first session lands',
  { timeout: 10_000 },
  async () => {
    const { lib, session } = await world();
    const other = (await lib.sessions.start({ pid: process.pid, label: 'other' })).id;
    let started: Promise<unknown> | undefined;
    await lib.state.mutate(session, () => {
      // Carries the plain function's frames, which close when this outer mutate returns.
      started = lib.state.mutate(other, async () => {
        await new Promise((r) => setImmediate(r));
        await lib.state.mutate(session, (c) => ({ ...(c as object), fromOther: true }));
        return { ran: true };
      });
      return { n: 1 };
    });
    await started;
    assert.deepEqual(await lib.state.get(session), { n: 1, fromOther: true });
    await lib.close();
  },
);

test(
  'a mutate nested after an await in a plain function that returns a promise waits for itself, and says so',
  { timeout: 15_000 },
  async () => {
    const { lib, session } = await world();
    const outer = lib.state.mutate(session, () =>
      new Promise((r) => setImmediate(r)).then(() =>
        lib.state.mutate(session, () => ({ inner: 1 }), { timeoutMs: 300 }),
      ),
    );
    await assert.rejects(
      outer,
      (e: Error & { code?: string }) => e.code === 'E_TIMEOUT' && /this very process/.test(e.message),
    );
    // Nothing half-written, and the gate is free again.
    assert.equal(await lib.state.get(session), undefined);
    assert.deepEqual(await lib.state.mutate(session, () => ({ after: true })), { after: true });
    await lib.close();
  },
);
