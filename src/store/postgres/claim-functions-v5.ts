import { PG_NOW } from './clock.js';

// The server-side claim and release as migrations 2 to 5 made them, kept as they were so those
// migrations make the same schema on every store; migration 8 replaces both (claim-functions.ts).
// Migration 2 created them; migration 4 recreates them journaling their decisions in their own
// transaction (`journal`), which takes the writer's host as one more argument; migration 5 replaces
// them with what `journal` makes (a claim rewrites a fresh session row no more, a release is one
// statement).

/** The grants' journal entries, numbered later by whoever reads the journal (journal.ts). */
function grantJournal(s: string): string {
  return `
    INSERT INTO ${s}.journal (at, session_id, repo, ticket, host, kind, subject, details)
      SELECT v_now, p_session,
        CASE WHEN starts_with(p_scopes[i], 'repo:') THEN substr(p_scopes[i], 6) END,
        coalesce(v_me.ticket, (SELECT u.n FROM unnest(p_kinds, p_names) AS u(k, n) WHERE u.k = 'ticket' LIMIT 1)), p_host, 'claim.grant',
        p_kinds[i] || ':' || p_names[i], jsonb_build_object('token', v_tokens[i])
      FROM generate_subscripts(p_names, 1) AS i ORDER BY i;`;
}

/**
 * A claim shows its session alive; not rewritten within a second of the last sign (the heartbeat's
 * rule): one row version less per claim. A session recorded dead is always refreshed (lapsing the record).
 */
function touchIfStale(s: string): string {
  return `IF v_me.last_seen_at < v_now - 1000 OR v_me.dead_seen_at IS NOT DISTINCT FROM v_me.last_seen_at THEN
      UPDATE ${s}.sessions SET last_seen_at = v_now WHERE id = p_session;
    END IF;`;
}

export function claimFunctionsV5(s: string, journal: boolean): string {
  return `
  CREATE OR REPLACE FUNCTION ${s}.lanes_claim(p_session TEXT, p_scopes TEXT[], p_kinds TEXT[], p_names TEXT[],
    p_keys TEXT[], p_lock_ms TEXT${journal ? ', p_host TEXT' : ''}) RETURNS jsonb LANGUAGE plpgsql AS $fn$
  DECLARE
    v_now BIGINT;
    v_me ${s}.sessions;
    v_conflicts jsonb;
    v_tokens BIGINT[] := '{}';
    v_token BIGINT;
  BEGIN
    PERFORM set_config('lock_timeout', p_lock_ms, true);
    -- The same locks as the transactional path, in the same (sorted) order: requests never deadlock.
    PERFORM pg_advisory_xact_lock(hashtextextended(k, 0)) FROM (SELECT unnest(p_keys) AS k ORDER BY 1) AS keys;
    v_now := ${PG_NOW};
    SELECT * INTO v_me FROM ${s}.sessions WHERE id = p_session FOR UPDATE;
    IF NOT FOUND THEN RETURN jsonb_build_object('status', 'unknown', 'now', v_now); END IF;
    IF v_me.ended_at IS NOT NULL THEN
      RETURN jsonb_build_object('status', 'ended', 'now', v_now, 'me', to_jsonb(v_me));
    END IF;
    -- Conflicts as core/resource.ts decides them: same scope and kind; names equal, or for paths
    -- equal but for a trailing slash, or one a directory (trailing slash) containing the other.
    -- The client decides again on what this returns, so a conflict found here in excess only costs
    -- the transactional path; one missed here would be granted (test/store/postgres-claim-fn).
    SELECT jsonb_agg(to_jsonb(c)) INTO v_conflicts FROM ${s}.claims c
      JOIN unnest(p_scopes, p_kinds, p_names) AS w(scope, kind, name) ON c.scope = w.scope AND c.kind = w.kind
      WHERE c.session_id <> p_session AND CASE WHEN w.kind = 'path' THEN
        (CASE WHEN right(c.name, 1) = '/' THEN left(c.name, -1) ELSE c.name END)
          = (CASE WHEN right(w.name, 1) = '/' THEN left(w.name, -1) ELSE w.name END)
        OR (right(w.name, 1) = '/' AND starts_with(c.name, w.name))
        OR (right(c.name, 1) = '/' AND starts_with(w.name, c.name))
      ELSE c.name = w.name END;
    IF v_conflicts IS NOT NULL THEN
      RETURN jsonb_build_object('status', 'conflict', 'now', v_now, 'me', to_jsonb(v_me), 'claims', v_conflicts,
        'holders', (SELECT coalesce(jsonb_agg(to_jsonb(h)), '[]') FROM ${s}.sessions h
          WHERE h.id IN (SELECT e->>'session_id' FROM jsonb_array_elements(v_conflicts) AS e)));
    END IF;
    FOR i IN 1 .. coalesce(array_length(p_names, 1), 0) LOOP
      INSERT INTO ${s}.fences (scope, kind, name, last_token) VALUES (p_scopes[i], p_kinds[i], p_names[i], 1)
        ON CONFLICT (scope, kind, name) DO UPDATE SET last_token = ${s}.fences.last_token + 1 RETURNING last_token INTO v_token;
      INSERT INTO ${s}.claims (scope, kind, name, session_id, token, acquired_at)
        VALUES (p_scopes[i], p_kinds[i], p_names[i], p_session, v_token, v_now)
        ON CONFLICT (scope, kind, name) DO UPDATE SET session_id = excluded.session_id, token = excluded.token, acquired_at = excluded.acquired_at;
      v_tokens := v_tokens || v_token;
    END LOOP;
    ${journal ? touchIfStale(s) : `UPDATE ${s}.sessions SET last_seen_at = v_now WHERE id = p_session;`}${journal ? grantJournal(s) : ''}
    RETURN jsonb_build_object('status', 'granted', 'now', v_now, 'tokens', to_jsonb(v_tokens));
  END
  $fn$;
  -- A release in one round trip, under the same lock_timeout as every transaction.${
    journal
      ? `
  CREATE OR REPLACE FUNCTION ${s}.lanes_release(p_session TEXT, p_scopes TEXT[], p_kinds TEXT[], p_names TEXT[],
    p_lock_ms TEXT, p_host TEXT) RETURNS SETOF ${s}.claims LANGUAGE plpgsql AS $fn$
  BEGIN
    PERFORM set_config('lock_timeout', p_lock_ms, true);
    -- The release and its journal entries in one statement (in the order asked); plpgsql keeps
    -- its plan between calls (an SQL function is planned again on every call).
    RETURN QUERY WITH gone AS (
      DELETE FROM ${s}.claims c USING unnest(p_scopes, p_kinds, p_names) WITH ORDINALITY AS r(scope, kind, name, n)
        WHERE c.scope = r.scope AND c.kind = r.kind AND c.name = r.name AND c.session_id = p_session
        RETURNING c.*, r.n
    ), logged AS (
      INSERT INTO ${s}.journal (at, session_id, repo, ticket, host, kind, subject, details)
        SELECT ${PG_NOW}, p_session,
          CASE WHEN starts_with(g.scope, 'repo:') THEN substr(g.scope, 6) END,
          (SELECT ticket FROM ${s}.sessions WHERE id = p_session), p_host, 'claim.release', g.kind || ':' || g.name,
          jsonb_build_object('token', g.token)
        FROM gone g ORDER BY g.n
    )
    SELECT g.scope, g.kind, g.name, g.session_id, g.token, g.acquired_at FROM gone g ORDER BY g.n;
  END
  $fn$;`
      : `
  CREATE OR REPLACE FUNCTION ${s}.lanes_release(p_session TEXT, p_scopes TEXT[], p_kinds TEXT[], p_names TEXT[],
    p_lock_ms TEXT) RETURNS SETOF ${s}.claims LANGUAGE plpgsql AS $fn$
  BEGIN
    PERFORM set_config('lock_timeout', p_lock_ms, true);
    RETURN QUERY DELETE FROM ${s}.claims c USING unnest(p_scopes, p_kinds, p_names) AS r(scope, kind, name)
      WHERE c.scope = r.scope AND c.kind = r.kind AND c.name = r.name AND c.session_id = p_session RETURNING c.*;
  END
  $fn$;`
  }
`;
}
