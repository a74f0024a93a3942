import type { ResourceRef } from '../../core/resource.js';
import { claimLookups, claimant, decideClaims, grantOf } from '../shared/claim-decision.js';
import { conflicting } from '../shared/conflict-lookup.js';
import { hostId } from '../../core/process-identity.js';
import { lockKeys, pathLookups, refArrays, textArray } from './claim-args.js';
import type { PgConn, Q } from './conn.js';
import { appendPgJournal } from './journal.js';
import { releasedOf, releaseUnchanged } from './claim-release.js';
import { granted } from '../shared/journal-entries.js';
import { insertStarted, sessionIn } from './sessions.js';
import { toClaim, toSession, type ClaimRow, type SessionRow } from '../shared/rows.js';
import { claimRankSql } from '../shared/claim-order.js';
import type { ClaimRecord, ClaimResult, ClaimStore, Grant, OwnerJudge, SessionRecord } from '../types.js';

/** What lanes_claim() (claim-functions.ts) returns. */
type FastClaim =
  | { status: 'unknown'; now: number }
  | { status: 'ended'; now: number; me: SessionRow }
  | { status: 'granted'; now: number; tokens: number[] }
  | { status: 'conflict'; now: number; me: SessionRow; claims: ClaimRow[]; holders: SessionRow[] };

/**
 * The transactional claim: loads every candidate claim and holder, judges, takes over the claims
 * of dead holders and grants, under the same advisory locks as the one-round-trip path. Used when
 * lanes_claim() found conflicting claims whose holders are all dead or ended.
 */
function acquireInTx(conn: PgConn, sessionId: string, wanted: ResourceRef[], judge: OwnerJudge): Promise<ClaimResult> {
  return conn.tx((q, now) => claimWith(conn, q, now, sessionId, wanted, judge));
}

/** The claim decision and its writes in the caller's transaction, under the claim's advisory locks. */
async function claimWith(
  conn: PgConn,
  q: Q,
  now: number,
  sessionId: string,
  wanted: ResourceRef[],
  judge: OwnerJudge,
): Promise<ClaimResult> {
  await q(
    `SELECT pg_advisory_xact_lock(hashtextextended(k, 0)) FROM unnest($1::text[]) WITH ORDINALITY AS keys(k, n) ORDER BY n`,
    [lockKeys(conn, wanted)],
  );
  const me = claimant(await sessionIn(conn, q, sessionId, true), sessionId, conn.target.display);
  const existing: ClaimRecord[] = [];
  for (const w of claimLookups(wanted)) {
    const rows =
      w.kind === 'path' || w.kind === 'file'
        ? await q<ClaimRow>(`SELECT * FROM ${conn.t('claims')} WHERE scope = $1 AND kind = $2`, [w.scope, w.kind])
        : await q<ClaimRow>(`SELECT * FROM ${conn.t('claims')} WHERE scope = $1 AND kind = $2 AND name = ANY($3)`, [
            w.scope,
            w.kind,
            wanted.map((x) => x.name),
          ]);
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
    grants.push(grantOf(w, Number(row?.token), plan, holder));
  }
  await q(`UPDATE ${conn.t('sessions')} SET last_seen_at = $1 WHERE id = $2`, [now, sessionId]);
  await appendPgJournal(
    conn,
    q,
    now,
    grants.map((g) => granted(me, sessionId, g, wanted)),
  );
  return { ok: true, grants };
}

/**
 * A claim lanes_claim() does not decide: a case-folded path (the transactional claim reads the
 * scope's path claims whole and compares them in JS; lanes_claim compares names exactly, in SQL),
 * or a file claim (paths overlap by directory; lanes_claim knows the overlap of kind path only).
 */
function transactional(wanted: ResourceRef[]): boolean {
  for (const w of wanted) if (w.fold || w.kind === 'file') return true;
  return false;
}

/** The grants of a granted lanes_claim(), in the order wanted. */
function grantsOf(wanted: ResourceRef[], tokens: number[]): ClaimResult {
  const grants: Grant[] = [];
  for (let i = 0; i < wanted.length; i++) grants.push({ ref: wanted[i]!, token: Number(tokens[i]) });
  return { ok: true, grants };
}

/**
 * What lanes_claim() did not grant, decided here: kept out of acquireClaims so that the grant's
 * path, compiled on every client, is small (bench/claims: V8 compiling it was a visible share of a
 * short client's CPU, most of it for these rare branches).
 */
async function notGranted(
  conn: PgConn,
  sessionId: string,
  wanted: ResourceRef[],
  judge: OwnerJudge,
  r: FastClaim | undefined,
): Promise<ClaimResult> {
  if (!r) throw new Error('lanes_claim returned nothing');
  if (r.status === 'unknown') throw claimant(null, sessionId, conn.target.display);
  if (r.status === 'ended') throw claimant(toSession(r.me), sessionId, conn.target.display);
  if (r.status === 'granted') return grantsOf(wanted, r.tokens);
  const holders = new Map<string, SessionRecord>(r.holders.map((h) => [h.id, toSession(h)]));
  holders.set(sessionId, toSession(r.me));
  const decision = decideClaims(
    sessionId,
    wanted,
    // Each claim once (two wanted paths can find the same one).
    conflicting(wanted, r.claims.map(toClaim)),
    (id) => holders.get(id) ?? null,
    judge,
    r.now,
  );
  // Every conflicting holder is dead or ended: take over, judging again inside one transaction.
  if (decision.ok) return acquireInTx(conn, sessionId, wanted, judge);
  const refused = { ...decision.result, now: r.now };
  return refused;
}

/** A claim's key in byte order (SQLite's), as the index by session holds it. */
const ORDER = 'scope COLLATE "C", kind COLLATE "C", name COLLATE "C"';
const KEY = `(${ORDER})`;

/**
 * Claims on PostgreSQL: claim operations serialize per resource (per scope for paths) with
 * transaction-level advisory locks, and the claiming session's row is locked (FOR UPDATE) so it
 * cannot end meanwhile. A claim is one round trip (lanes_claim) unless it must take over a dead
 * holder's claim; a release is one statement.
 */
export function pgClaims(conn: PgConn): Omit<ClaimStore, 'conflictingClaims'> {
  // Built once per store: each call only binds its arguments.
  const claimSql = conn.statement(
    `SELECT ${conn.t('lanes_claim')}($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) AS r`,
  );
  // The released claims as one jsonb value: one column for the client to describe and parse, not six
  // (measured: ~6% of a claim/release cycle's client instructions, bench/RESULTS.md).
  // This host as its journal entries name it, read once as the library's context reads it (LANES_HOST_ID or the hostname).
  const host = hostId();
  // lock_timeout as set_config() takes it, made once.
  const lockMs = conn.lockTimeout;
  const releaseSql = conn.statement(
    `SELECT coalesce(jsonb_agg(c), '[]') AS r FROM ${conn.t('lanes_release')}($1, $2, $3, $4, $5, $6) AS c`,
  );
  return {
    async acquireClaims(sessionId, wanted, judge) {
      if (transactional(wanted)) return acquireInTx(conn, sessionId, wanted, judge);
      const [scopes, kinds, names] = refArrays(wanted);
      const [row] = await conn.call<{ r: FastClaim }>(claimSql, [
        sessionId,
        scopes,
        kinds,
        names,
        textArray(lockKeys(conn, wanted)),
        lockMs,
        host,
        ...pathLookups(wanted),
      ]);
      const r = row?.r;
      return r?.status === 'granted' ? grantsOf(wanted, r.tokens) : notGranted(conn, sessionId, wanted, judge, r);
    },

    async insertSessionClaiming(session, wanted, judge) {
      // A refusal rolls the registration back: thrown out of the transaction, answered from here.
      let refused: Extract<ClaimResult, { ok: false }> | undefined;
      try {
        return await conn.tx(async (q, now) => {
          const started = await insertStarted(conn, q, session, now);
          const claim = await claimWith(conn, q, now, session.id, wanted, judge);
          if (claim.ok) return { ok: true as const, session: started, grants: claim.grants };
          refused = { ...claim, now };
          throw new Error('lanes: the session is not registered (its claim was refused)');
        });
      } catch (e) {
        if (refused) return refused;
        throw e;
      }
    },

    async releaseClaims(sessionId, refs, unchangedSince) {
      const [scopes, kinds, names] = refArrays(refs);
      const args = [sessionId, scopes, kinds, names, lockMs, host];
      if (unchangedSince) return releaseUnchanged(conn, releaseSql.text, sessionId, refs, args, unchangedSince);
      const [row] = await conn.call<{ r: ClaimRow[] }>(releaseSql, args);
      return releasedOf(refs, row?.r ?? []);
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
      if (filter.sessionIds) {
        args.push(filter.sessionIds);
        where.push(`session_id = ANY($${args.length})`);
      }
      // With one session, a range of claims_by_session_key (schema 8), which holds the key in this order.
      if (filter.after) {
        args.push(filter.after.scope, filter.after.kind, filter.after.name);
        where.push(`${KEY} > ($${args.length - 2}, $${args.length - 1}, $${args.length})`);
      }
      if (filter.limit !== undefined) args.push(filter.limit);
      // COLLATE "C": the same byte order as SQLite's.
      const rows = await conn.query<ClaimRow>(
        `SELECT * FROM ${conn.t('claims')} ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY ${ORDER}${filter.limit !== undefined ? ` LIMIT $${args.length}` : ''}`,
        args,
      );
      return rows.map(toClaim);
    },

    async firstClaims(sessionIds, perSession) {
      if (sessionIds.length === 0) return [];
      // Each session's first claims from its own range of the index (a top-N sort of its claims
      // alone: the order a person reads them in is not the key's), not a sort of all of theirs.
      const rows = await conn.query<ClaimRow>(
        `SELECT c.* FROM unnest($1::text[]) WITH ORDINALITY AS s(id, i)
         CROSS JOIN LATERAL (SELECT * FROM ${conn.t('claims')} WHERE session_id = s.id
           ORDER BY ${claimRankSql('kind')}, ${ORDER} LIMIT $2) c
         ORDER BY s.i, ${claimRankSql('c.kind')}, ${ORDER.replace(/\b(scope|kind|name)\b/g, 'c.$1')}`,
        [[...new Set(sessionIds)], perSession],
      );
      return rows.map(toClaim);
    },

    async claimCounts(sessionIds) {
      const rows = await conn.query<{ session_id: string; n: string }>(
        `SELECT session_id, count(*) AS n FROM ${conn.t('claims')} WHERE session_id = ANY($1) GROUP BY session_id`,
        [[...new Set(sessionIds)]],
      );
      return new Map(rows.map((r) => [r.session_id, Number(r.n)]));
    },

    async claimHolders() {
      // A skip scan: one step of the index per holder, not one per claim (PostgreSQL has no
      // loose index scan of its own).
      const c = conn.t('claims');
      const rows = await conn.query<{ id: string }>(
        `WITH RECURSIVE h(id) AS (SELECT min(session_id) FROM ${c}
           UNION ALL SELECT (SELECT min(session_id) FROM ${c} WHERE session_id > h.id) FROM h WHERE h.id IS NOT NULL)
         SELECT id FROM h WHERE id IS NOT NULL`,
      );
      return rows.map((r) => r.id);
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
