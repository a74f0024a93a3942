import { cpSync, mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Copies a conversation's file (or directory) to `target` unless the target is as new or newer: a
 * session that moves back to a seat it ran on finds there its own older copy of the conversation,
 * which the turns taken elsewhere must replace (kept, it would resume without them, silently).
 * The conversation's id is the session's own, so no other agent writes that file meanwhile.
 */
export function copyIfNewer(file: string, target: string): boolean {
  const mtime = (p: string) => {
    try {
      return statSync(p).mtimeMs;
    } catch {
      return -1;
    }
  };
  if (mtime(target) >= mtime(file)) return false;
  mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
  cpSync(file, target, { recursive: true, force: true, preserveTimestamps: true });
  return true;
}
