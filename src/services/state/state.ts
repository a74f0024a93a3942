import { LanesError } from '../../core/errors.js';
import { assertSessionId } from '../../core/ids.js';
import type { StateChange, StateOwner } from '../../store/types.js';
import { sessionEnded, unknownSession } from '../context.js';
import type { LanesContext } from '../context.js';
import { enterGate } from './gate.js';
import type { Entered, HeldGate, StepFn } from './gate.js';
import type { WaitOptions } from '../wait.js';
import { currentFrames, inAsyncFrame, inSyncFrame, openFrame } from './state-frames.js';
import type { Frame } from './state-frames.js';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Return this from a mutate function to delete the state in the same gated step. */
export const CLEAR: unique symbol = Symbol.for('lanes.state.clear');

type MutatorResult = Json | undefined | typeof CLEAR;

export type Mutator = (current: Json | undefined) => MutatorResult | Promise<MutatorResult>;

function gateName(sessionId: string): string {
  return `state:${sessionId}`;
}

function serialize(value: Json | undefined, sessionId: string): string | undefined {
  if (value === undefined) return undefined;
  try {
    return JSON.stringify(value);
  } catch (e) {
    throw new LanesError(
      'E_USAGE',
      `the new state of session ${sessionId} cannot be stored as JSON: ${(e as Error).message}`,
      {
        hint: 'return plain JSON values (no BigInt, functions or cycles); nothing was written',
      },
    );
  }
}

export class StateService {
  constructor(private readonly ctx: LanesContext) {}

  /** The last committed state (a plain read; never waits). */
  async get(sessionId: string): Promise<Json | undefined> {
    const inFrame = openFrame(sessionId);
    if (inFrame) return inFrame.value;
    const row = await this.ctx.store.readState(assertSessionId(sessionId));
    return parseState(row?.value);
  }

  /**
   * Runs fn under the session's gate and stores what it returns (undefined: keep the value, with
   * any in-place edits; CLEAR: delete). Serialized across processes. A nested mutate of the same
   * session joins the open frame instead of deadlocking on its own gate.
   */
  async mutate(sessionId: string, fn: Mutator, options: WaitOptions = {}): Promise<Json | undefined> {
    assertSessionId(sessionId);
    const frame = openFrame(sessionId);
    if (frame) {
      // Applied at once when fn returns at once: a plain outer function's result is computed
      // right after this call returns, in the same synchronous run.
      const result = fn(frame.value);
      apply(frame, isThenable(result) ? await result : result);
      return frame.value;
    }
    const open = currentFrames();
    const own: Frame = { value: undefined, closed: false };
    const inFrame = open ? new Map(open).set(sessionId, own) : new Map([[sessionId, own]]);
    // One frame per session being mutated in this call chain, so that code running inside (however
    // deep) is recognised as inside: an async function's through its awaits, a plain function's
    // for its synchronous run (state-frames.ts says why).
    const declaredAsync = isAsyncFunction(fn);
    const call = declaredAsync
      ? () => inAsyncFrame(inFrame, () => fn(own.value) as Promise<MutatorResult>)
      : () => inSyncFrame(inFrame, () => fn(own.value));
    try {
      return await this.gated(sessionId, options, own, call, declaredAsync);
    } finally {
      own.closed = true;
    }
  }

  /** mutate() past its frame: the one-step path when it can, else the gate. */
  private async gated(
    sessionId: string,
    options: WaitOptions,
    own: Frame,
    call: () => MutatorResult | Promise<MutatorResult>,
    declaredAsync: boolean,
  ): Promise<Json | undefined> {
    const name = gateName(sessionId);

    // The one-step path: when the store can and the gate is the caller's to enter, a function that
    // returns at once runs inside one write step of the store and its result is written there (one
    // write instead of two). A function declared async never runs there: its work must not start
    // before the gate is written, and a write step that failed after it started could not stop it.
    let before: string | undefined;
    let pending: Promise<MutatorResult> | undefined;
    const step: StepFn = (state, owner) => {
      if (owner === 'unknown') throw unknownSession(sessionId, this.ctx.store.info.location);
      before = state?.value;
      own.value = parseState(before);
      const result = call();
      if (isThenable(result)) {
        // It went asynchronous after all: hold the gate from this same step on.
        pending = Promise.resolve(result);
        return { kind: 'hold' };
      }
      apply(own, result);
      return { kind: 'apply', change: changeOf(own, before, owner, sessionId) };
    };
    let entered: Entered;
    try {
      entered = await enterGate(
        this.ctx,
        name,
        sessionId,
        `the state gate of session ${sessionId}`,
        options,
        declaredAsync ? undefined : step,
      );
    } catch (e) {
      // The step was rolled back; work the function started must still end before we report it.
      await pending?.catch(() => undefined);
      throw e;
    }
    if (entered.kind === 'applied') return own.value;
    if (entered.kind === 'stepped') return this.finish(entered.gate, own, before, pending!, sessionId);

    const gate = entered.gate;
    if (gate.owner === 'unknown') {
      // Read in the step that took the gate: no state is ever written for a session the store lacks.
      await gate.release({ kind: 'keep' });
      throw unknownSession(sessionId, this.ctx.store.info.location);
    }
    const start = gate.state?.value;
    own.value = parseState(start);
    let result: Promise<MutatorResult>;
    try {
      result = Promise.resolve(call());
    } catch (e) {
      result = Promise.reject(e);
    }
    return this.finish(gate, own, start, result, sessionId);
  }

  /** Waits for the function's result under the held gate, then writes it and frees the gate (nothing on error). */
  private async finish(
    gate: HeldGate,
    own: Frame,
    before: string | undefined,
    result: Promise<MutatorResult>,
    sessionId: string,
  ): Promise<Json | undefined> {
    let change: StateChange;
    try {
      apply(own, await result);
      change = changeOf(own, before, gate.owner!, sessionId);
    } catch (e) {
      await gate.release({ kind: 'keep' });
      throw e;
    }
    await gate.release(change);
    return own.value;
  }

  /** One key of the state; E_NOT_FOUND when the session has no such key. */
  async getKey(sessionId: string, key: string): Promise<Json> {
    const obj = asObject(await this.get(sessionId), sessionId);
    if (!Object.hasOwn(obj, key))
      throw new LanesError('E_NOT_FOUND', `session ${sessionId} has no state key ${JSON.stringify(key)}`, {
        hint: `set it with \`lanes state set ${key} JSON\``,
      });
    return obj[key] as Json;
  }

  /** Sets one key under the gate; returns the whole new state. */
  setKey(sessionId: string, key: string, value: Json, options: WaitOptions = {}): Promise<Json | undefined> {
    return this.mutate(sessionId, (cur) => ({ ...asObject(cur, sessionId), [key]: value }), options);
  }

  /** Removes one key under the gate; the state itself goes when that was its last key. */
  clearKey(sessionId: string, key: string, options: WaitOptions = {}): Promise<Json | undefined> {
    return this.mutate(
      sessionId,
      (cur) => {
        const obj = { ...asObject(cur, sessionId) };
        delete obj[key];
        return Object.keys(obj).length === 0 ? CLEAR : obj;
      },
      options,
    );
  }

  /** Deletes the state under the gate, so it can never undo a concurrent locked write. */
  async clear(sessionId: string, options: WaitOptions = {}): Promise<boolean> {
    assertSessionId(sessionId);
    if (openFrame(sessionId)) {
      throw new LanesError(
        'E_CLEAR_IN_MUTATE',
        `refusing to clear the state of session ${sessionId} from inside a mutate() of the same session`,
        {
          hint: 'the outer mutate would write the state back when it returns (the resurrection bug): return CLEAR from the mutate function instead, or call state.clearIf() outside it',
          details: { session: sessionId },
        },
      );
    }
    let existed = false;
    await this.mutate(
      sessionId,
      (current) => {
        existed = current !== undefined;
        return CLEAR;
      },
      options,
    );
    return existed;
  }

  /** Decide and clear in one gated step: clears only when the predicate holds for the current state. */
  async clearIf(
    sessionId: string,
    predicate: (current: Json | undefined) => boolean | Promise<boolean>,
    options: WaitOptions = {},
  ): Promise<boolean> {
    if (openFrame(sessionId)) return this.clear(sessionId, options);
    let cleared = false;
    await this.mutate(
      sessionId,
      async (current) => {
        cleared = current !== undefined && (await predicate(current));
        return cleared ? CLEAR : undefined;
      },
      options,
    );
    return cleared;
  }
}

type JsonObject = { [key: string]: Json };

/** The state as an object of keys (nothing stored: no keys); a state that is not an object has none. */
function asObject(value: Json | undefined, sessionId: string): JsonObject {
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new LanesError('E_USAGE', `the state of session ${sessionId} is not a JSON object, so it has no keys`, {
      hint: 'read it whole with `lanes state get`',
    });
  }
  return value;
}

/** A stored state's JSON text as a value (no text: no state). */
function parseState(text: string | undefined): Json | undefined {
  return text === undefined ? undefined : (JSON.parse(text) as Json);
}

/** What to write for a frame's value, given the stored text it started from. */
function changeOf(own: Frame, before: string | undefined, owner: StateOwner, sessionId: string): StateChange {
  const after = serialize(own.value, sessionId);
  const change: StateChange =
    after === before ? { kind: 'keep' } : after === undefined ? { kind: 'delete' } : { kind: 'set', value: after };
  // An ended session's state can be read and cleared, never written: the session is over.
  if (change.kind === 'set' && owner === 'ended')
    throw sessionEnded(sessionId, 'its state is kept for reading and clearing only');
  return change;
}

function isThenable(value: unknown): value is PromiseLike<MutatorResult> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

const AsyncFunction = (async () => undefined).constructor;
function isAsyncFunction(fn: unknown): boolean {
  return fn instanceof AsyncFunction;
}

function apply(frame: Frame, result: Json | undefined | typeof CLEAR): void {
  if (result === CLEAR) frame.value = undefined;
  else if (result !== undefined) frame.value = result;
}
