import type { SqliteConn } from './conn.js';
import { DEFAULT_JOURNAL_LIMIT, fromTextRow, journalWhere, stamped } from '../shared/journal-entries.js';
import type { JournalRow } from '../shared/journal-entries.js';
import { settle } from '../shared/journal-follow.js';
import type { JournalEntry, JournalInput, JournalStore } from '../journal-types.js';

/**
 * The next number: above the highest entry, and above the highest ever pruned when none is left
 * (meta.journal_floor), so a number is never reused. Both reads are one b-tree edge each.
 */
const NEXT_SEQ = `coalesce((SELECT max(seq) FROM journal),
  (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'journal_floor'), 0) + 1`;

/**
 * Appends entries inside the caller's transaction (the decision's own): SQLite has one writer at a
 * time, so sequence numbers are in commit order.
 */
export function appendJournalRows(conn: SqliteConn, now: number, entries: JournalInput[]): void {
  insertJournalRows(conn, stamped(entries, now));
}

/**
 * Entries as they are (their own times and hosts: also lanes store copy's), numbered here. No
 * RETURNING: SQLite buffers a RETURNING statement's rows, a cost in every claim's write lock.
 */
export function insertJournalRows(conn: SqliteConn, entries: Omit<JournalEntry, 'seq'>[]): void {
  const insert = conn.stmt(
    `INSERT INTO journal (seq, at, session_id, repo, ticket, host, kind, subject, details)
     VALUES (${NEXT_SEQ}, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const e of entries)
    insert.run(e.at, e.session, e.repo, e.ticket, e.host, e.kind, e.subject, JSON.stringify(e.details));
}

/** The whole journal, oldest first, without numbers (lanes store copy). */
export function dumpJournalRows(conn: SqliteConn): Omit<JournalEntry, 'seq'>[] {
  return (conn.stmt(`SELECT * FROM journal ORDER BY seq`).all() as JournalRow[]).map((r) => {
    const { seq: _seq, ...entry } = fromTextRow(r);
    return entry;
  });
}

export function sqliteJournal(conn: SqliteConn): JournalStore {
  return {
    appendJournal(entries) {
      if (entries.length === 0) return Promise.resolve();
      return conn.immediate((now) => void appendJournalRows(conn, now, entries));
    },

    readJournal(q) {
      return conn.run(() => {
        const args: unknown[] = [];
        const where = journalWhere(q, (v) => (args.push(v), '?'));
        const order = q.order === 'desc' ? 'DESC' : 'ASC';
        const rows = conn
          .stmt(`SELECT * FROM journal ${where} ORDER BY seq ${order} LIMIT ?`)
          .all(...args, q.limit ?? DEFAULT_JOURNAL_LIMIT) as JournalRow[];
        return rows.map(fromTextRow);
      });
    },

    followJournal(query, cursor) {
      return conn.run(() => {
        const rows = (
          conn.stmt(`SELECT * FROM journal WHERE seq > ? ORDER BY seq LIMIT 1000`).all(cursor.afterSeq) as JournalRow[]
        ).map(fromTextRow);
        return settle(rows, cursor, query);
      });
    },

    lastJournalSeq() {
      return conn.run(() => (conn.stmt(`SELECT ${NEXT_SEQ} - 1 AS seq`).get() as { seq: number }).seq);
    },

    pruneJournal(before, batch) {
      // Small batches, each its own short transaction: writers wait at most one batch. The oldest
      // `batch` entries by number, those among them older than `before` (time is not indexed;
      // numbers follow time, so this walks only what is due and stops at the first batch that is
      // not all due). The highest number deleted is kept, so numbers are never reused.
      return conn.immediate(() => {
        const gone = conn
          .stmt(
            `DELETE FROM journal WHERE seq IN
               (SELECT seq FROM (SELECT seq, at FROM journal ORDER BY seq LIMIT ?) WHERE at < ?) RETURNING seq`,
          )
          .all(batch, before) as { seq: number }[];
        if (gone.length === 0) return 0;
        conn
          .stmt(
            `INSERT INTO meta (key, value) VALUES ('journal_floor', ?)
             ON CONFLICT (key) DO UPDATE SET value = max(CAST(value AS INTEGER), CAST(excluded.value AS INTEGER))`,
          )
          .run(Math.max(...gone.map((g) => g.seq)));
        return gone.length;
      });
    },
  };
}
