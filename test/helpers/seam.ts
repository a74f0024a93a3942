// Runs a lanes command in-process against a library that only records what it is asked: flag
// parsing tested apart from behaviour (the GitHub CLI's runF seam). The first library call stops
// the command; the test reads which call it was and with which arguments.
import { stripVTControlCharacters } from 'node:util';
import type { Lanes, LanesOptions } from '../../src/index.js';
import { runCommand } from '../../src/cli/runner.js';

export interface LibraryCall {
  /** e.g. "claims.claim" */
  path: string;
  args: unknown[];
}

export interface SeamResult {
  code: number;
  stdout: string;
  stderr: string;
  /** The options the command opened the library with (null: it never opened it). */
  opened: Partial<LanesOptions> | null;
  call: LibraryCall | null;
}

class Reached extends Error {
  constructor(readonly call: LibraryCall) {
    super(`reached the library: ${call.path}`);
  }
}

function recordingLibrary(seen: { call: LibraryCall | null }): Lanes {
  const at = (path: string[]): unknown =>
    new Proxy(function library() {}, {
      get(_target, prop) {
        if (prop === 'then') return undefined; // not a promise: `await io.lanes()` gets the object itself
        if (path.length === 0 && prop === 'sessionId') return null;
        if (path.length === 0 && prop === 'close') return async () => undefined;
        return at([...path, String(prop)]);
      },
      apply(_target, _this, args: unknown[]) {
        const call = { path: path.join('.'), args };
        seen.call ??= call;
        throw new Reached(call);
      },
    });
  return at([]) as Lanes;
}

export async function runWithSeam(argv: string[]): Promise<SeamResult> {
  const [name = '', ...args] = argv;
  let stdout = '';
  let stderr = '';
  let opened: Partial<LanesOptions> | null = null;
  const seen: { call: LibraryCall | null } = { call: null };
  const code = await runCommand(name, args, {
    // Colours off whatever the environment says (picocolors colours under CI=true even in a pipe).
    stdout: (t) => void (stdout += stripVTControlCharacters(t)),
    stderr: (t) => void (stderr += stripVTControlCharacters(t)),
    open: async (options) => {
      opened = options;
      return recordingLibrary(seen);
    },
  });
  return { code, stdout, stderr, opened, call: seen.call };
}
