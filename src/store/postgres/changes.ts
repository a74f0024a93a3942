import type { PgConn } from './conn.js';
import { PG_NOW } from './schema.js';
import type { ChangeStore } from '../types.js';

/**
 * The change mark on PostgreSQL, read without any help from writers: a NOTIFY in every write (or a
 * trigger sending one) makes commits that notify wait for each other, a lock held through the
 * commit's flush (measured with pgbench here: 40-60% fewer small write transactions per second),
 * and LISTEN does not work behind PgBouncer in transaction mode. So the mark is read:
 * - the journal: its last number and how many committed entries wait for one (entries are
 *   numbered when read: journal.ts); index reads only, whatever the journal's length;
 * - the fleet: the count and the sum of the row versions (xmin: the writing transaction's id,
 *   new in every row a commit changed) of the open sessions and of the waits. The sum moves with
 *   any committed change to them and is exact for the snapshot read, unlike a "changed at" time,
 *   which a transaction committing late would put in the past. One pass over the open sessions.
 */
export function pgChanges(conn: PgConn): ChangeStore {
  const journal = `(SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM ${conn.t('journal_seq')}) AS seq,
    (SELECT count(*) FROM ${conn.t('journal')} WHERE seq IS NULL) AS unnumbered`;
  const fleet = `(SELECT count(*) || ':' || coalesce(sum(xmin::text::bigint), 0) FROM ${conn.t('sessions')} WHERE ended_at IS NULL) AS sessions,
    (SELECT count(*) || ':' || coalesce(sum(xmin::text::bigint), 0) FROM ${conn.t('waits')}) AS waits`;
  return {
    async changeMark(options = {}) {
      const withFleet = options.fleet !== false;
      const [row] = await conn.call<{
        seq: string | number;
        unnumbered: string | number;
        sessions?: string;
        waits?: string;
        now: string | number;
      }>(`SELECT ${journal}, ${withFleet ? `${fleet}, ` : ''}${PG_NOW} AS now`);
      return {
        journal: `${row?.seq}:${row?.unnumbered}`,
        fleet: withFleet ? `${row?.sessions}/${row?.waits}` : null,
        now: Number(row?.now),
      };
    },
  };
}
