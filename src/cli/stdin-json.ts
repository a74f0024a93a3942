import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import type { Payload } from '../agents/adapter.js';

// What agents pipe to lanes' hot commands (`lanes hook`, `lanes statusline`): one JSON object.

/** Generous for a patch; an agent's hook payload is a few KB. */
const MAX_INPUT = 16 * 1024 * 1024;

/** The JSON object on stdin, read synchronously (an agent pipes it and closes the pipe). */
export function readStdinJson(): Payload {
  // fstat, not tty.isatty: node:tty loads net and streams, a few ms of every tool call.
  if (fstatSync(0).isCharacterDevice())
    throw new Error('no payload: stdin is a terminal (agents pipe their JSON to this command)');
  // Read into one buffer, grown when full, and decoded once: no copy per chunk, no join, and
  // toString without an encoding name to look up (on Node 20, each of those is Node code compiled
  // in every tool call: ~0.5 M instructions).
  let buf = Buffer.allocUnsafe(65536);
  let total = 0;
  for (;;) {
    if (total === buf.length) {
      const bigger = Buffer.allocUnsafe(buf.length * 2);
      buf.copy(bigger, 0, 0, total);
      buf = bigger;
    }
    let n: number;
    try {
      n = readSync(0, buf, total, buf.length - total, null);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EAGAIN') {
        // A non-blocking pipe: wait for data by reopening it blocking.
        const fd = openSync('/dev/stdin', constants.O_RDONLY);
        try {
          n = readSync(fd, buf, total, buf.length - total, null);
        } finally {
          closeSync(fd);
        }
      } else if (code === 'EOF') n = 0;
      else throw e;
    }
    if (n === 0) break;
    total += n;
    if (total > MAX_INPUT) throw new Error(`the payload is larger than ${MAX_INPUT} bytes`);
  }
  // UTF-8, the default: toString(undefined, …) skips the encoding's lookup.
  const text = buf.toString(undefined, 0, total);
  if (text.trim() === '') throw new Error('empty payload on stdin');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new Error(`the payload is not JSON (${(e as Error).message})`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new Error('the payload is not a JSON object');
  return value as Payload;
}
