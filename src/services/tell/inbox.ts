import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeDirsSync } from '../../core/make-dirs.js';

// A session's inbox mark (lanes tell): an empty file per session id in $LANES_HOME/inbox, made once
// the message is journaled. Every hook call of an agent looks for its mark (one failed stat: the
// hot path's cost) and reads the journal for its messages only when there is one. The mark goes
// before the messages are read: one told after that read marks the inbox again.

const dirOf = (home: string) => join(home, 'inbox');
const fileOf = (home: string, key: string) => join(dirOf(home), encodeURIComponent(key));

export function markInbox(home: string, keys: string[]): void {
  makeDirsSync(dirOf(home));
  for (const k of keys) writeFileSync(fileOf(home, k), '');
}

/** The keys (session ids, an agent's own `<agent>:<id>`) whose inbox is marked. */
export function markedInbox(home: string, keys: (string | null | undefined)[]): string[] {
  return keys.filter((k): k is string => !!k && existsSync(fileOf(home, k)));
}

export function clearInbox(home: string, keys: string[]): void {
  for (const k of keys) rmSync(fileOf(home, k), { force: true });
}
