// A hot command (`lanes hook` in every agent tool call) that is done exits at once: process.exit
// skips tearing the isolate down, ~1 ms of a call that sits in every tool call (bench/hook.mjs).
// That is safe only while no write can still be pending: a write through process.stdout or
// process.stderr may be asynchronous (pipes on macOS), so the streams' getters are watched and
// an exit after either was created is left to Node's own, which flushes them. The 'exit' listeners
// (the code cache's save) run either way.

let touched = false;

/** Watches process.stdout and process.stderr being created (call before anything writes). */
export function watchStdio(): void {
  for (const name of ['stdout', 'stderr'] as const) {
    const d = Object.getOwnPropertyDescriptor(process, name);
    if (!d?.get || !d.configurable) {
      touched = true; // not Node's lazy getter: never exit early
      continue;
    }
    const get = d.get;
    Object.defineProperty(process, name, {
      configurable: true,
      enumerable: d.enumerable ?? true,
      get() {
        touched = true;
        return get.call(process);
      },
    });
  }
}

/** Exits now when nothing written can be pending; else lets Node exit as usual with the code. */
export function exitWhenSettled(code: number): void {
  process.exitCode = code;
  if (!touched) process.exit(code);
}
