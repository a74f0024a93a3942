import type { ResourceRef } from '../../core/resource.js';
import { claimLookups, claimant, decideClaims, grantOf } from '../shared/claim-decision.js';
import type { PgConn } from './conn.js';
import { sessionIn } from './sessions.js';
import { toClaim } from '../shared/rows.js';
import type { ClaimRow } from '../shared/rows.js';
import type { ClaimRecord, ClaimResult, ClaimStore, Grant, SessionRecord } from '../types.js';

/**
 * Claims on PostgreSQL: claim operations serialize per scope with transaction-level advisory
 * locks, and the claiming session's row is locked (FOR UPDATE) so it cannot end meanwhile.
 */
export function pgClaims(conn: PgConn): Omit<ClaimStore, 'conflictingClaims'> {
  return {
    acquireClaims(sessionId, wanted, judge) {
      return conn.tx(async (q, now): Promise<ClaimResult> => {
        // Requests that could conflict take turns: one lock per named resource, and one per scope for
        // path claims (a path conflicts with the paths inside it). Taken in sorted order in one
        // statement, so two requests never deadlock.
        const keys = [
          ...new Set(
            wanted.map(
              (w) => `lanes:claims:${conn.target.schema}:${w.scope}:${w.kind}${w.kind === 'path' ? '' : `:${w.name}`}`,
            ),
          ),
        ].sort();
        await q(
          `SELECT pg_advisory_xact_lock(hashtextextended(k, 0)) FROM (SELECT unnest($1::text[]) AS k ORDER BY 1) AS keys`,
          [keys],
        );
        const me = claimant(await sessionIn(conn, q, sessionId, true), sessionId, conn.target.display);
        const existing: ClaimRecord[] = [];
        for (const w of claimLookups(wanted)) {
          const rows =
            w.kind === 'path'
              ? await q<ClaimRow>(`SELECT * FROM ${conn.t('claims')} WHERE scope = $1 AND kind = 'path'`, [w.scope])
              : await q<ClaimRow>(
                  `SELECT * FROM ${conn.t('claims')} WHERE scope = $1 AND kind = $2 AND name = ANY($3)`,
                  [w.scope, w.kind, wanted.map((x) => x.name)],
                );
          existing.push(...rows.map(toClaim));
        }
        const holders = new Map<string, SessionRecord | null>();
        for (const c of existing)
          if (!holders.has(c.sessionId))
            holders.set(c.sessionId, c.sessionId === sessionId ? me : await sessionIn(conn, q, c.sessionId));
        const holder = (id: string) => holders.get(id) ?? null;
        const decision = decideClaims(sessionId, wanted, existing, holder, judge, now);
        if (!decision.ok) return decision.result;
        const { plan } = decision;
        for (const t of plan.takeovers)
          await q(`DELETE FROM ${conn.t('claims')} WHERE scope = $1 AND kind = $2 AND name = $3`, [
            t.held.scope,
            t.held.kind,
            t.held.name,
          ]);
        const grants: Grant[] = [];
        for (const w of wanted) {
          // The next token and the claim in one statement of the same transaction.
          const [row] = await q<{ token: number }>(
            `WITH f AS (INSERT INTO ${conn.t('fences')} (scope, kind, name, last_token) VALUES ($1, $2, $3, 1)
               ON CONFLICT (scope, kind, name) DO UPDATE SET last_token = ${conn.t('fences')}.last_token + 1 RETURNING last_token)
             INSERT INTO ${conn.t('claims')} (scope, kind, name, session_id, token, acquired_at) SELECT $1, $2, $3, $4, last_token, $5 FROM f
             ON CONFLICT (scope, kind, name) DO UPDATE SET session_id = excluded.session_id, token = excluded.token, acquired_at = excluded.acquired_at
             RETURNING token`,
            [w.scope, w.kind, w.name, sessionId, now],
          );
          const token = Number(row?.token);
          grants.push(grantOf(w, token, plan, holder));
        }
        await q(`UPDATE ${conn.t('sessions')} SET last_seen_at = $1 WHERE id = $2`, [now, sessionId]);
        return { ok: true, grants };
      });
    },

    releaseClaims(sessionId, refs) {
      return conn.tx(async (q) => {
        const released: ClaimRecord[] = [];
        const notHeld: ResourceRef[] = [];
        for (const r of refs) {
          const [row] = await q<ClaimRow>(
            `DELETE FROM ${conn.t('claims')} WHERE scope = $1 AND kind = $2 AND name = $3 AND session_id = $4 RETURNING *`,
            [r.scope, r.kind, r.name, sessionId],
          );
          if (row) released.push(toClaim(row));
          else notHeld.push(r);
        }
        return { released, notHeld };
      });
    },

    async listClaims(filter = {}) {
      const where: string[] = [];
      const args: unknown[] = [];
      if (filter.scopes) {
        args.push(filter.scopes);
        where.push(`scope = ANY($${args.length})`);
      }
      if (filter.sessionId !== undefined) {
        args.push(filter.sessionId);
        where.push(`session_id = $${args.length}`);
      }
      // COLLATE "C": the same byte order as SQLite's.
      const rows = await conn.query<ClaimRow>(
        `SELECT * FROM ${conn.t('claims')} ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY scope COLLATE "C", kind COLLATE "C", name COLLATE "C"`,
        args,
      );
      return rows.map(toClaim);
    },

    async lastToken(ref) {
      const [row] = await conn.query<{ last_token: number }>(
        `SELECT last_token FROM ${conn.t('fences')} WHERE scope = $1 AND kind = $2 AND name = $3`,
        [ref.scope, ref.kind, ref.name],
      );
      return row ? Number(row.last_token) : 0;
    },
  };
}
