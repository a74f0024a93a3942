import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

// An agent's own record (Claude Code's transcript, Codex's rollout) grows for as long as the session
// lasts: how it ended is at its end, so only the end is read.

/** How much of a record's end is read (its last entries). */
export const RECORD_TAIL = 256 * 1024;

/** The last `bytes` of a file, or null when it cannot be read. */
export function tail(path: string | null, bytes = RECORD_TAIL): string | null {
  if (!path) return null;
  try {
    const fd = openSync(path, 'r');
    try {
      const size = fstatSync(fd).size;
      const buf = Buffer.alloc(Math.min(size, bytes));
      readSync(fd, buf, 0, buf.length, size - buf.length);
      return buf.toString('utf8');
    } finally {
      closeSync(fd);
    }
  } catch {
    return null;
  }
}
