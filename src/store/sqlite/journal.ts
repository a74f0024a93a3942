import { hostId } from '../../core/process-identity.js';
import type { SqliteConn } from './conn.js';
import { DEFAULT_JOURNAL_LIMIT, journalWhere, toEntry } from '../shared/journal-entries.js';
import type { JournalRow } from '../shared/journal-entries.js';
import { settle } from '../shared/journal-follow.js';
import type { JournalInput, JournalStore } from '../journal-types.js';

/**
 * Appends entries inside the caller's transaction (the decision's own): SQLite has one writer at a
 * time, so sequence numbers (AUTOINCREMENT: never reused, even after pruning) are in commit order.
 */
export function appendJournalRows(conn: SqliteConn, now: number, entries: JournalInput[]): number[] {
  const insert = conn.stmt(
    `INSERT INTO journal (at, session_id, repo, ticket, host, kind, subject, details) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING seq`,
  );
  const host = hostId();
  return entries.map(
    (e) =>
      (
        insert.get(
          now,
          e.session ?? null,
          e.repo ?? null,
          e.ticket ?? null,
          host,
          e.kind,
          e.subject,
          JSON.stringify(e.details ?? {}),
        ) as { seq: number }
      ).seq,
  );
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
        return rows.map(toEntry);
      });
    },

    followJournal(query, cursor) {
      return conn.run(() => {
        const rows = (
          conn.stmt(`SELECT * FROM journal WHERE seq > ? ORDER BY seq LIMIT 1000`).all(cursor.afterSeq) as JournalRow[]
        ).map(toEntry);
        return settle(rows, cursor, query);
      });
    },

    lastJournalSeq() {
      return conn.run(
        () =>
          (conn.stmt(`SELECT seq FROM sqlite_sequence WHERE name = 'journal'`).get() as { seq: number } | undefined)
            ?.seq ?? 0,
      );
    },

    pruneJournal(before, batch) {
      // Small batches, each its own short transaction: writers wait at most one batch.
      return conn.immediate(
        () =>
          conn
            .stmt(`DELETE FROM journal WHERE seq IN (SELECT seq FROM journal WHERE at < ? ORDER BY seq LIMIT ?)`)
            .run(before, batch).changes,
      );
    },
  };
}
