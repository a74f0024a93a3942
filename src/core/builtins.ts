import { createRequire } from 'node:module';
import type * as ChildProcess from 'node:child_process';
import type * as Crypto from 'node:crypto';
import type * as Net from 'node:net';

/**
 * Node built-ins that are loaded on first use rather than at start-up. `lanes hook` runs inside
 * every agent tool call and most of its answers need neither a child process nor a socket nor a
 * hash; loading child_process (which pulls in net and streams) and crypto up front cost a few
 * milliseconds of each call (measured with --cpu-prof, see bench/RESULTS.md).
 */
const load = createRequire(import.meta.url);

let childProcessModule: typeof ChildProcess | undefined;
let cryptoModule: typeof Crypto | undefined;
let netModule: typeof Net | undefined;

export const childProcess = (): typeof ChildProcess =>
  (childProcessModule ??= load('node:child_process') as typeof ChildProcess);
export const crypto = (): typeof Crypto => (cryptoModule ??= load('node:crypto') as typeof Crypto);
export const net = (): typeof Net => (netModule ??= load('node:net') as typeof Net);
