import type { ResourceRef } from '../../core/resource.js';
import type { PgConn } from './conn.js';
import { sessionIn } from './sessions.js';
import { toClaim, unchanged, type ClaimRow } from '../shared/rows.js';
import type { ClaimRecord } from '../types.js';

// What a release does with lanes_release()'s rows (claims.ts), and the conditional release.

/** The released claims (lanes_release's rows) matched to the refs asked for; the rest were not held. */
export function releasedOf(refs: ResourceRef[], rows: ClaimRow[]): { released: ClaimRecord[]; notHeld: ResourceRef[] } {
  const released: ClaimRecord[] = [];
  const notHeld: ResourceRef[] = [];
  for (const r of refs) {
    let row: ClaimRow | undefined;
    for (const x of rows)
      if (x.scope === r.scope && x.kind === r.kind && x.name === r.name) {
        row = x;
        break;
      }
    if (row) released.push(toClaim(row));
    else notHeld.push(r);
  }
  return { released, notHeld };
}

/** A conditional release: the session's row locked, compared, and the release in the same transaction. */
export async function releaseUnchanged(
  conn: PgConn,
  sql: string,
  sessionId: string,
  refs: ResourceRef[],
  args: unknown[],
  unchangedSince: Parameters<typeof unchanged>[1],
): Promise<{ released: ClaimRecord[]; notHeld: ResourceRef[]; changed?: true }> {
  const rows = await conn.tx(async (q) => {
    const s = await sessionIn(conn, q, sessionId, true);
    return s && !unchanged(s, unchangedSince) ? null : q<{ r: ClaimRow[] }>(sql, args);
  });
  if (rows === null) return { released: [], notHeld: refs, changed: true as const };
  return releasedOf(refs, rows[0]?.r ?? []);
}
