import type { FollowCursor, JournalEntry, JournalQuery } from '../journal-types.js';
import { expandKinds } from './journal-entries.js';

// Following the journal: both stores number entries in commit order (SQLite's writers take turns;
// PostgreSQL's take one lock held to their commit: postgres/journal.ts), so every entry after the
// last number a follower saw is either visible or not committed yet, and reading "after N" misses
// and repeats nothing. The follower reads every entry and filters here, so it passes over what it
// does not show instead of reading it again.

export function matches(e: JournalEntry, q: JournalQuery): boolean {
  if (q.since !== undefined && e.at < q.since) return false;
  if (q.session !== undefined && e.session !== q.session) return false;
  if (q.ticket !== undefined && e.ticket !== q.ticket) return false;
  if (q.repo !== undefined && e.repo !== q.repo) return false;
  if (q.kinds !== undefined && !expandKinds(q.kinds).kinds.includes(e.kind)) return false;
  return true;
}

/** The entries of `rows` (every entry after the cursor, in order) the query shows, and where to read next. */
export function settle(
  rows: JournalEntry[],
  cursor: FollowCursor,
  query: JournalQuery,
): { entries: JournalEntry[]; cursor: FollowCursor } {
  const last = rows[rows.length - 1];
  return { entries: rows.filter((r) => matches(r, query)), cursor: { afterSeq: last ? last.seq : cursor.afterSeq } };
}
