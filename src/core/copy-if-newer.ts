import { cpSync, statSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { dirname } from 'node:path';
import { makeDirsSync } from './make-dirs.js';

/**
 * How much older a copy's time may read than its source's and still be the same version: a copy
 * keeps its source's time only as precisely as utimes sets it (below a millisecond is lost, so half
 * of all copies read older: measured), or the file system holds it (whole seconds on HFS+, two on
 * FAT).
 */
const TIME_PRECISION_MS = 2000;

/**
 * Copies a conversation's file (or directory) to `target` unless the target is as new or newer: a
 * session that moves back to a seat it ran on finds there its own older copy of the conversation,
 * which the turns taken elsewhere must replace (kept, it would resume without them, silently).
 * The conversation's id is the session's own, so no other agent writes that file meanwhile.
 * Conversation files only grow: within the time precision above, a target smaller than its source
 * lacks turns and is replaced.
 */
export function copyIfNewer(file: string, target: string): boolean {
  const stat = (p: string): Stats | null => {
    try {
      return statSync(p);
    } catch {
      return null;
    }
  };
  const [from, to] = [stat(file), stat(target)];
  if (!from) return false;
  if (to && to.mtimeMs >= from.mtimeMs) return false;
  const sameVersion =
    to && from.mtimeMs - to.mtimeMs <= TIME_PRECISION_MS && (to.isDirectory() || to.size >= from.size);
  if (sameVersion) return false;
  makeDirsSync(dirname(target), 0o700);
  cpSync(file, target, { recursive: true, force: true, preserveTimestamps: true });
  return true;
}
