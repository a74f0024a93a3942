import { conflicting, lookupsFor } from '../shared/conflict-lookup.js';
import type { ResourceRef } from '../../core/resource.js';
import type { SqliteConn } from './conn.js';
import { toClaim } from '../shared/rows.js';
import type { ClaimRow } from '../shared/rows.js';
import type { ClaimRecord } from '../types.js';

/**
 * The claims that conflict with `refs`, read through the primary key (scope, kind, name): an IN
 * list and, for a directory, one range of names below it. Runs in the caller's transaction when
 * there is one (acquireClaims), so what it reads is what the claim decides on.
 */
export function conflictingRows(conn: SqliteConn, refs: ResourceRef[]): ClaimRecord[] {
  const rows: ClaimRecord[] = [];
  for (const l of lookupsFor(refs)) {
    if (l.all) {
      const all = conn.stmt(`SELECT * FROM claims WHERE scope = ? AND kind = ?`).all(l.scope, l.kind) as ClaimRow[];
      rows.push(...all.map(toClaim));
      continue;
    }
    const marks = l.names.map(() => '?').join(',');
    rows.push(
      ...(
        conn
          .stmt(`SELECT * FROM claims WHERE scope = ? AND kind = ? AND name IN (${marks})`)
          .all(l.scope, l.kind, ...l.names) as ClaimRow[]
      ).map(toClaim),
    );
    if (l.range)
      rows.push(
        ...(
          conn
            .stmt(`SELECT * FROM claims WHERE scope = ? AND kind = ? AND name > ? AND name < ?`)
            .all(l.scope, l.kind, l.range.after, l.range.before) as ClaimRow[]
        ).map(toClaim),
      );
  }
  return conflicting(refs, rows);
}
