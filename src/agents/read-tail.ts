import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

// An agent's own record (Claude Code's transcript, Codex's rollout) grows for as long as the session
// lasts: how it ended is at its end, so only the end is read. A report that begins with what it
// reports and goes on with the conversation (Gemini CLI's error report) is read from its start.

/** How much of a record's end is read (its last entries). */
export const RECORD_TAIL = 256 * 1024;

/** The last `bytes` of a file, or null when it cannot be read. */
export function tail(path: string | null, bytes = RECORD_TAIL): string | null {
  return read(path, bytes, true);
}

/** The first `bytes` of a file, or null when it cannot be read. */
export function head(path: string | null, bytes = RECORD_TAIL): string | null {
  return read(path, bytes, false);
}

function read(path: string | null, bytes: number, end: boolean): string | null {
  if (!path) return null;
  try {
    const fd = openSync(path, 'r');
    try {
      const size = fstatSync(fd).size;
      const buf = Buffer.alloc(Math.min(size, bytes));
      readSync(fd, buf, 0, buf.length, end ? size - buf.length : 0);
      return buf.toString('utf8');
    } finally {
      closeSync(fd);
    }
  } catch {
    return null;
  }
}
