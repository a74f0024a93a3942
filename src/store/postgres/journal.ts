import type { PgConn, Q } from './conn.js';
import { DEFAULT_JOURNAL_LIMIT, fromJsonRow, journalWhere, stamped } from '../shared/journal-entries.js';
import type { JournalRow } from '../shared/journal-entries.js';
import { settle } from '../shared/journal-follow.js';
import type { JournalEntry, JournalInput, JournalStore } from '../journal-types.js';

/**
 * Appends entries in the caller's transaction, without a number: writers take no lock. A number
 * handed out when written (a sequence) would follow the order of writing, not of commit, and a
 * follower reading "after N" could miss a smaller number committed later; a lock held to commit
 * makes them agree but serializes every journaled commit on the server's disk flush (measured: it
 * nearly halved claim throughput). So entries are numbered when read: number() gives every
 * committed entry not numbered yet the next numbers, one caller at a time, so a number becomes
 * visible only with all smaller ones (and a follower after N misses and repeats nothing).
 * (Tried and dropped as well: numbering at write and waiting out gaps by snapshot. A running
 * transaction whose id is at or above a snapshot's xmax is not listed in it, so a gap looked
 * settled while its writer still ran.)
 */
export async function appendPgJournal(conn: PgConn, q: Q, now: number, entries: JournalInput[]): Promise<void> {
  await insertPgJournal(conn, q, stamped(entries, now));
}

/** Entries as they are (their own times and hosts: also lanes store copy's), unnumbered, in batches. */
export async function insertPgJournal(conn: PgConn, q: Q, entries: Omit<JournalEntry, 'seq'>[]): Promise<void> {
  for (let i = 0; i < entries.length; i += 1000) {
    const batch = entries.slice(i, i + 1000);
    await q(
      `INSERT INTO ${conn.t('journal')} (at, session_id, repo, ticket, host, kind, subject, details)
       SELECT e.at, e.session_id, e.repo, e.ticket, e.host, e.kind, e.subject, e.details
       FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::jsonb[])
         WITH ORDINALITY AS e(at, session_id, repo, ticket, host, kind, subject, details, n)
       ORDER BY e.n`,
      [
        batch.map((e) => e.at),
        batch.map((e) => e.session),
        batch.map((e) => e.repo),
        batch.map((e) => e.ticket),
        batch.map((e) => e.host),
        batch.map((e) => e.kind),
        batch.map((e) => e.subject),
        batch.map((e) => JSON.stringify(e.details)),
      ],
    );
  }
}

/** The whole journal, oldest first, without numbers (lanes store copy): numbered ones, then the rest as written. */
export async function dumpPgJournal(conn: PgConn, q: Q): Promise<Omit<JournalEntry, 'seq'>[]> {
  const rows = await q<JournalRow>(`SELECT * FROM ${conn.t('journal')} ORDER BY seq NULLS LAST, id`);
  return rows.map((r) => {
    const { seq: _seq, ...entry } = fromJsonRow({ ...r, seq: r.seq ?? 0 });
    return entry;
  });
}

/** Numbers what was committed since the last reader did (lanes_journal_number, migration 4). */
function number(conn: PgConn): Promise<unknown> {
  return conn.query(`SELECT ${conn.t('lanes_journal_number')}()`);
}

export function pgJournal(conn: PgConn): JournalStore {
  return {
    appendJournal(entries) {
      if (entries.length === 0) return Promise.resolve();
      return conn.tx((q, now) => appendPgJournal(conn, q, now, entries));
    },

    async readJournal(query) {
      await number(conn);
      const args: unknown[] = [];
      const cond = journalWhere(query, (v) => (args.push(v), `$${args.length}`));
      const where = cond ? `${cond} AND seq IS NOT NULL` : 'WHERE seq IS NOT NULL';
      args.push(query.limit ?? DEFAULT_JOURNAL_LIMIT);
      const rows = await conn.query<JournalRow>(
        `SELECT * FROM ${conn.t('journal')} ${where} ORDER BY seq ${query.order === 'desc' ? 'DESC' : 'ASC'} LIMIT $${args.length}`,
        args,
      );
      return rows.map(fromJsonRow);
    },

    async followJournal(query, cursor) {
      await number(conn);
      const rows = await conn.query<JournalRow>(
        `SELECT * FROM ${conn.t('journal')} WHERE seq > $1 ORDER BY seq LIMIT 1000`,
        [cursor.afterSeq],
      );
      return settle(rows.map(fromJsonRow), cursor, query);
    },

    async lastJournalSeq() {
      await number(conn);
      // The sequence, not max(seq): the last number stays known when pruning has left no entry.
      const [row] = await conn.query<{ seq: string | null }>(
        `SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS seq FROM ${conn.t('journal_seq')}`,
      );
      return Number(row?.seq ?? 0);
    },

    async pruneJournal(before, batch) {
      const rows = await conn.query(
        // The oldest `batch` entries, those among them older than `before` (time is not indexed;
        // the order of writing follows time, so this stops at the first batch not all due).
        // (= ANY of an array: an IN subquery may be planned as a hash join over the whole table.)
        `DELETE FROM ${conn.t('journal')} WHERE id = ANY(ARRAY(
           SELECT id FROM (SELECT id, at FROM ${conn.t('journal')} ORDER BY id LIMIT $2) o WHERE at < $1)) RETURNING id`,
        [before, batch],
      );
      return rows.length;
    },
  };
}
