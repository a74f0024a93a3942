import { AsyncLocalStorage } from 'node:async_hooks';
import type { Json } from './state.js';

/** One session's value while a mutate() of it is open in this process. */
export interface Frame {
  value: Json | undefined;
  /** Set when its mutate() has written or failed: code still running from inside it is outside now. */
  closed: boolean;
}

/** The frames open in one call chain, by session. */
export type Frames = Map<string, Frame>;

// Which mutate() frames the running code is inside, so that a nested mutate joins its frame and a
// clear from inside it is refused.
//
// An async function's frame follows it through its awaits: AsyncLocalStorage. But on Node 20 an
// enabled AsyncLocalStorage installs promise hooks that every promise of the process then pays
// (measured: the gate's throughput at K = 4 went from ~13k to 16-19k mutates/s without them). So it
// is used only while some async function's frame is open, and disabled again when the last one
// closes. A plain function's frame covers its synchronous run: `sync`, set around the call.
// Made at the first async mutate: the hooks of a tool call never open one, and creating it loads
// node:async_hooks' storage modules (~0.2 ms of every call).
let storage: AsyncLocalStorage<Frames> | undefined;
const asyncFrames = (): AsyncLocalStorage<Frames> => (storage ??= new AsyncLocalStorage<Frames>());
let openAsync = 0;
let sync: Frames | undefined;

/** The frames the running code is inside (none: undefined). */
export function currentFrames(): Frames | undefined {
  return sync ?? (openAsync > 0 ? asyncFrames().getStore() : undefined);
}

/**
 * The open frame of a session the running code is inside, if any. A closed one does not count: code
 * a mutate left running (never awaited; a timer it started) still carries its frames, and joining
 * one that was already written would lose the write silently.
 */
export function openFrame(sessionId: string): Frame | undefined {
  const frame = currentFrames()?.get(sessionId);
  return frame && !frame.closed ? frame : undefined;
}

/** Runs a plain function inside `frames` for its synchronous run. */
export function inSyncFrame<T>(frames: Frames, fn: () => T): T {
  const outer = sync;
  sync = frames;
  try {
    return fn();
  } finally {
    sync = outer;
  }
}

/** Runs an async function inside `frames` through all its awaits; resolves when it has settled. */
export async function inAsyncFrame<T>(frames: Frames, fn: () => Promise<T>): Promise<T> {
  openAsync++;
  try {
    let settled: Promise<T>;
    const outer = sync;
    // Its synchronous start reads the async frame (which holds any plain outer's frames too); the
    // caller's own synchronous run, which goes on when fn first awaits, gets its frame back at once.
    sync = undefined;
    try {
      settled = asyncFrames().run(frames, fn);
    } finally {
      sync = outer;
    }
    return await settled;
  } finally {
    // The last async frame closed: no promise of the process pays the hooks any longer. (A later
    // run() enables the storage again, and code left running from inside an old frame sees that
    // frame again: openFrame() skips it, closed.)
    if (--openAsync === 0) asyncFrames().disable();
  }
}
