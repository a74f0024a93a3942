import { childProcess, load } from './builtins.js';
import type * as Os from 'node:os';
import type * as Util from 'node:util';

/** How a child ended: its exit code, the signal that killed it, or why it could not run. */
export type ChildEnd =
  { code: number; signal: null } | { code: null; signal: NodeJS.Signals } | { error: NodeJS.ErrnoException };

export interface InheritingChild {
  /** Sends it a signal (a child that already ended is left alone). */
  kill(signal: NodeJS.Signals): void;
  /** Which way it was started (test/core/spawn-inherit.test.ts runs both). */
  readonly via: 'process_wrap' | 'child_process';
}

/** libuv's process handle, as node:child_process itself drives it (lib/internal/child_process.js). */
interface ProcessHandle {
  // Node 20 and 22 pass one options object; Node 24 and 26 the same fields one by one, the three
  // booleans as flags (the binding's `constants`).
  spawn(...args: unknown[]): number;
  kill(signal: number): number;
  close(): void;
  onexit: (exitCode: number, signalCode: string) => void;
}
type Handle = { Ctor: new () => ProcessHandle; positional: boolean };

let handleKind: Handle | null | undefined;

/**
 * The process handle, where it may be had quietly and its call is known. The call's shape is
 * internal to Node and a wrong one aborts the process (a C++ CHECK, nothing to catch), so only the
 * majors lanes supports and is tested on (20, 22, 24, 26) use it, each in the shape its
 * child_process uses (the binding's `constants` came with the positional call in Node 24); any
 * other Node takes child_process until it has been tested. process.binding is deprecated in the
 * documentation only (DEP0111) and warns under --pending-deprecation, and the permission model
 * refuses it: both leave child_process to do the work too.
 */
function processHandle(): Handle | null {
  if (handleKind !== undefined) return handleKind;
  handleKind = null;
  try {
    const major = Number(process.versions.node.split('.')[0]);
    if (![20, 22, 24, 26].includes(major)) return null;
    const pending = (s: string | undefined) => (s ?? '').includes('--pending-deprecation');
    if (process.execArgv.some(pending) || pending(process.env['NODE_OPTIONS'])) return null;
    if ((process as { permission?: unknown }).permission !== undefined) return null;
    const binding = (process as unknown as { binding(name: string): Record<string, unknown> }).binding('process_wrap');
    const constants = binding['constants'] as Record<string, unknown> | undefined;
    if (typeof binding['Process'] !== 'function') return null;
    if (constants !== undefined && constants['kProcessFlagDetached'] !== 1) return null;
    handleKind = { Ctor: binding['Process'] as Handle['Ctor'], positional: constants !== undefined };
  } catch {
    handleKind = null;
  }
  return handleKind;
}

/**
 * Runs FILE ARGS with this process' stdin, stdout and stderr, in CWD with exactly ENV, as
 * `child_process.spawn(file, args, { stdio: 'inherit', cwd, env })` does, and calls `onEnd` once
 * when it ends or could not start (ENOENT, EACCES: reported, never thrown).
 *
 * `lanes exec` wraps every command an agent runs through it. Loading node:child_process loads
 * net, dgram and every stream module with it (11 M instructions, callgrind; about 5 ms of a
 * 24 ms `node -e 0` here, with the spawn), and a child whose stdio are this process' own uses none
 * of them. So the child is started through libuv's process handle, the one child_process wraps,
 * given the options child_process would give it (file, argv, cwd, the environment as KEY=VALUE
 * pairs, each stdio inherited by descriptor). Where that handle is not to be had (see above), or
 * an argument holds a NUL byte (child_process refuses it; the handle would cut the string there),
 * child_process runs it. What this start skips of child_process: its diagnostics_channel events
 * (a tracer subscribed to child_process does not see this child) and the stdio streams, which an
 * inherited stdio does not have.
 */
export function spawnInherit(
  file: string,
  args: readonly string[],
  options: {
    cwd: string;
    env: Record<string, string | undefined>;
    /** child_process even where the handle is to be had (the tests compare the two). */
    via?: 'child_process';
  },
  onEnd: (end: ChildEnd) => void,
): InheritingChild {
  const pairs = envPairs(options.env);
  const kind = options.via === 'child_process' ? null : processHandle();
  const plain = [file, ...args, options.cwd, ...pairs].every((s) => !s.includes('\0'));
  if (!kind || !plain) return viaChildProcess(file, args, options, onEnd);
  const handle = new kind.Ctor();
  let ended = false;
  const end = (e: ChildEnd) => {
    if (ended) return;
    ended = true;
    handle.close();
    onEnd(e);
  };
  handle.onexit = (exitCode, signalCode) => {
    // A negative code is a spawn that failed after the call returned (libuv's errno).
    if (exitCode < 0) end({ error: errnoError(exitCode, file) });
    else if (signalCode) end({ code: null, signal: signalCode as NodeJS.Signals });
    else end({ code: exitCode, signal: null });
  };
  const stdio = [0, 1, 2].map((fd) => ({ type: 'inherit', fd }));
  const argv = [file, ...args];
  let err: number;
  try {
    err = kind.positional
      ? // file, args, cwd, envPairs, stdio, flags (detached, windowsHide, verbatim: none), uid, gid
        handle.spawn(file, argv, options.cwd, pairs, stdio, 0, undefined, undefined)
      : handle.spawn({
          file,
          args: argv,
          cwd: options.cwd,
          envPairs: pairs,
          stdio,
          detached: false,
          windowsHide: false,
          windowsVerbatimArguments: false,
        });
  } catch {
    // A type the handle refuses throws before anything started (a wrong count would not: see above).
    handleKind = null;
    return viaChildProcess(file, args, options, onEnd);
  }
  // As child_process does: a command that cannot be run is an event, after this call returns.
  if (err !== 0) queueMicrotask(() => end({ error: errnoError(err, file) }));
  return {
    via: 'process_wrap',
    kill: (signal) => {
      if (ended) return;
      const n = (load('node:os') as typeof Os).constants.signals[signal];
      if (n !== undefined) handle.kill(n);
    },
  };
}

function viaChildProcess(
  file: string,
  args: readonly string[],
  options: { cwd: string; env: Record<string, string | undefined> },
  onEnd: (end: ChildEnd) => void,
): InheritingChild {
  let ended = false;
  const end = (e: ChildEnd) => {
    if (!ended) onEnd(e);
    ended = true;
  };
  const child = childProcess().spawn(file, args, { stdio: 'inherit', cwd: options.cwd, env: options.env });
  child.on('error', (error: NodeJS.ErrnoException) => end({ error }));
  child.on('exit', (code, signal) => end(signal ? { code: null, signal } : { code: code ?? 1, signal: null }));
  return {
    via: 'child_process',
    kill: (signal) => {
      if (!ended) child.kill(signal);
    },
  };
}

/** The environment as child_process passes it on: KEY=VALUE for every key with a value. */
function envPairs(env: Record<string, string | undefined>): string[] {
  const pairs: string[] = [];
  for (const key in env) {
    const value = env[key];
    if (value !== undefined) pairs.push(`${key}=${value}`);
  }
  // child_process always carries NODE_V8_COVERAGE along, so coverage of a spawned Node is collected.
  const coverage = process.env['NODE_V8_COVERAGE'];
  if (coverage !== undefined && env['NODE_V8_COVERAGE'] === undefined) pairs.push(`NODE_V8_COVERAGE=${coverage}`);
  return pairs;
}

/** libuv's errno as child_process reports it: code ENOENT, syscall `spawn FILE`, path FILE. */
function errnoError(errno: number, file: string): NodeJS.ErrnoException {
  const util = load('node:util') as typeof Util;
  let code: string;
  try {
    code = util.getSystemErrorName(errno);
  } catch {
    code = `E${-errno}`;
  }
  const e: NodeJS.ErrnoException = new Error(`spawn ${file} ${code}`);
  Object.assign(e, { errno, code, syscall: `spawn ${file}`, path: file });
  return e;
}
