import type * as ChildProcess from 'node:child_process';
import type * as Crypto from 'node:crypto';
import type * as Net from 'node:net';
import type * as Os from 'node:os';

/**
 * Node built-ins that are loaded on first use rather than at start-up. `lanes hook` runs inside
 * every agent tool call and most of its answers need neither a child process nor a socket nor a
 * hash; loading child_process (which pulls in net and streams) and crypto up front cost a few
 * milliseconds of each call (measured with --cpu-prof, see bench/RESULTS.md).
 */
// process.getBuiltinModule (Node 22.3+; lanes runs on 22.13+) needs no require: making one
// with createRequire loaded node:module (and its source-map support) in every hook call.
/** A Node built-in by name (node:sqlite included), loaded now. */
export const load = (name: string): unknown => process.getBuiltinModule(name);

let childProcessModule: typeof ChildProcess | undefined;
let cryptoModule: typeof Crypto | undefined;
let netModule: typeof Net | undefined;
let osModule: typeof Os | undefined;

export const childProcess = (): typeof ChildProcess =>
  (childProcessModule ??= load('node:child_process') as typeof ChildProcess);
export const crypto = (): typeof Crypto => (cryptoModule ??= load('node:crypto') as typeof Crypto);
export const net = (): typeof Net => (netModule ??= load('node:net') as typeof Net);
// node:os too: each hot-path module that imported homedir or tmpdir loaded it (~1.3 M instructions,
// callgrind, about 4% of what lanes adds to a bare node in a hook call).
export const os = (): typeof Os => (osModule ??= load('node:os') as typeof Os);

/** The home directory: $HOME, which os.homedir() also reads first, else the user database's. */
export const homeDir = (): string => process.env['HOME'] || os().homedir();
