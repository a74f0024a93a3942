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
  const chunks: Buffer[] = [];
  let total = 0;
  const buf = Buffer.allocUnsafe(65536);
  for (;;) {
    let n: number;
    try {
      n = readSync(0, buf, 0, buf.length, null);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EAGAIN') {
        // A non-blocking pipe: wait for data by reopening it blocking.
        const fd = openSync('/dev/stdin', constants.O_RDONLY);
        try {
          n = readSync(fd, buf, 0, buf.length, null);
        } finally {
          closeSync(fd);
        }
      } else if (code === 'EOF') n = 0;
      else throw e;
    }
    if (n === 0) break;
    total += n;
    if (total > MAX_INPUT) throw new Error(`the payload is larger than ${MAX_INPUT} bytes`);
    chunks.push(Buffer.from(buf.subarray(0, n)));
  }
  const text = Buffer.concat(chunks).toString('utf8');
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
