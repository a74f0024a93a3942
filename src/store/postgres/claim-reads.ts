import { conflicting, lookupsFor } from '../shared/conflict-lookup.js';
import type { PgConn, Q } from './conn.js';
import { toClaim } from '../shared/rows.js';
import type { ClaimRow } from '../shared/rows.js';
import type { ResourceRef } from '../../core/resource.js';
import type { ClaimRecord, ClaimStore } from '../types.js';

/** The claims conflicting with `refs`, in one statement on `q` (the caller's transaction, or none). */
export async function conflictingRowsPg(conn: PgConn, q: Q, refs: ResourceRef[]): Promise<ClaimRecord[]> {
  const parts: string[] = [];
  const args: unknown[] = [];
  const arg = (v: unknown) => (args.push(v), `$${args.length}`);
  for (const l of lookupsFor(refs)) {
    const [scope, kind] = [arg(l.scope), arg(l.kind)];
    if (l.all) {
      parts.push(`SELECT * FROM ${conn.t('claims')} WHERE scope = ${scope} AND kind = ${kind}`);
      continue;
    }
    parts.push(
      `SELECT * FROM ${conn.t('claims')} WHERE scope = ${scope} AND kind = ${kind} AND name COLLATE "C" = ANY(${arg(l.names)}::text[])`,
    );
    if (l.range)
      parts.push(
        `SELECT * FROM ${conn.t('claims')} WHERE scope = ${scope} AND kind = ${kind} AND name COLLATE "C" > ${arg(l.range.after)} AND name COLLATE "C" < ${arg(l.range.before)}`,
      );
  }
  if (parts.length === 0) return [];
  const rows = await q<ClaimRow>(parts.join(' UNION ALL '), args);
  return conflicting(refs, rows.map(toClaim));
}

/**
 * Claim reads on PostgreSQL that must stay flat in the number of claims: the claims conflicting with
 * some resources, as one statement (an IN list per lookup, and for a directory a range of names
 * below it, in the "C" collation of the claims_by_name_c index).
 */
export function pgClaimReads(conn: PgConn): Pick<ClaimStore, 'conflictingClaims'> {
  return {
    conflictingClaims(refs) {
      return conflictingRowsPg(conn, (sql, args) => conn.query(sql, args), refs);
    },
  };
}
