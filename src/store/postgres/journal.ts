import { hostId } from '../../core/process-identity.js';
import type { PgConn, Q } from './conn.js';
import { journalLockKey } from './journal-lock.js';
import { DEFAULT_JOURNAL_LIMIT, journalWhere, toEntry } from '../shared/journal-entries.js';
import type { JournalRow } from '../shared/journal-entries.js';
import { settle } from '../shared/journal-follow.js';
import type { JournalInput, JournalStore } from '../journal-types.js';

/**
 * Appends entries as the LAST statement of the caller's transaction. A sequence alone would number
 * entries in the order they were written, not committed: a follower reading "after seq N" could
 * then miss a smaller number committed later. Writers take one advisory lock, held until their
 * commit is visible, so numbers are handed out in commit order (the lock is taken after every
 * other lock of the transaction, so it adds no deadlock). Its price: journaled commits take turns
 * on the server's disk flush (bench/RESULTS.md). A lock-free numbering whose followers wait out
 * gaps by snapshot was tried and fails: a running transaction whose id is at or above the
 * snapshot's xmax is not listed in it, so a gap can look settled while its writer still runs.
 */
export async function appendPgJournal(conn: PgConn, q: Q, now: number, entries: JournalInput[]): Promise<number[]> {
  if (entries.length === 0) return [];
  await q(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [journalLockKey(`"${conn.target.schema}"`)]);
  const rows = await q<{ seq: string }>(
    `INSERT INTO ${conn.t('journal')} (seq, at, session_id, repo, ticket, host, kind, subject, details)
     SELECT nextval('${conn.t('journal_seq')}'), $1, e.session_id, e.repo, e.ticket, $2, e.kind, e.subject, e.details
     FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::jsonb[]) WITH ORDINALITY
       AS e(session_id, repo, ticket, kind, subject, details, n)
     ORDER BY e.n RETURNING seq`,
    [
      now,
      hostId(),
      entries.map((e) => e.session ?? null),
      entries.map((e) => e.repo ?? null),
      entries.map((e) => e.ticket ?? null),
      entries.map((e) => e.kind),
      entries.map((e) => e.subject),
      entries.map((e) => JSON.stringify(e.details ?? {})),
    ],
  );
  return rows.map((r) => Number(r.seq));
}

export function pgJournal(conn: PgConn): JournalStore {
  return {
    appendJournal(entries) {
      if (entries.length === 0) return Promise.resolve([]);
      return conn.tx((q, now) => appendPgJournal(conn, q, now, entries));
    },

    async readJournal(query) {
      const args: unknown[] = [];
      const where = journalWhere(query, (v) => (args.push(v), `$${args.length}`));
      args.push(query.limit ?? DEFAULT_JOURNAL_LIMIT);
      const rows = await conn.query<JournalRow>(
        `SELECT * FROM ${conn.t('journal')} ${where} ORDER BY seq ${query.order === 'desc' ? 'DESC' : 'ASC'} LIMIT $${args.length}`,
        args,
      );
      return rows.map(toEntry);
    },

    async followJournal(query, cursor) {
      const rows = await conn.query<JournalRow>(
        `SELECT * FROM ${conn.t('journal')} WHERE seq > $1 ORDER BY seq LIMIT 1000`,
        [cursor.afterSeq],
      );
      return settle(rows.map(toEntry), cursor, query);
    },

    async lastJournalSeq() {
      // The sequence may be ahead of what is committed (a writer between nextval and commit): the
      // highest committed entry is the truth a follower may resume from.
      const [row] = await conn.query<{ seq: string | null }>(`SELECT max(seq) AS seq FROM ${conn.t('journal')}`);
      return Number(row?.seq ?? 0);
    },

    async pruneJournal(before, batch) {
      const rows = await conn.query(
        `DELETE FROM ${conn.t('journal')} WHERE seq IN (SELECT seq FROM ${conn.t('journal')} WHERE at < $1 ORDER BY seq LIMIT $2) RETURNING seq`,
        [before, batch],
      );
      return rows.length;
    },
  };
}
