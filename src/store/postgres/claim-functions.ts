import { PG_NOW } from './clock.js';

// lanes_claim and lanes_release as migration 8 makes them (claims.ts calls them; the versions
// before are in claim-functions-v5.ts). What a call costs the server was measured (callgrind on a
// single-user server, bench/RESULTS.md): in the functions of migration 5, statements over
// unnest() of the array arguments were planned again on every call (a plan made for the arrays at
// hand looks cheaper to the planner than its generic plan, so plpgsql never keeps one), and the
// conflict test read every claim of the scope and kind. Here each statement reads or writes one
// row by its key, with scalar arguments, so each keeps one plan for the connection's life; the
// advisory locks and lock_timeout are plain expressions (no statement, no executor); a path is
// looked up by the names that can overlap it, as core/path-overlap.ts lists them.

/** A claim's conflicts: named resources by key, paths by the names and ranges the caller lists. */
function conflictTest(s: string): string {
  return `
    FOR i IN 1 .. cardinality(p_names) LOOP
      CONTINUE WHEN p_kinds[i] = 'path';
      SELECT to_jsonb(c) INTO v_found FROM ${s}.claims c
        WHERE c.scope = p_scopes[i] AND c.kind = p_kinds[i] AND c.name = p_names[i] AND c.session_id <> p_session;
      IF FOUND THEN v_conflicts := v_conflicts || v_found; END IF;
    END LOOP;
    -- A path overlaps its own name with or without the trailing slash and every directory above
    -- it (p_near_*), and a directory every name below it (p_below_*: a range in byte order, which
    -- claims_by_name_c keeps in the "C" collation).
    FOR i IN 1 .. coalesce(cardinality(p_near_names), 0) LOOP
      SELECT to_jsonb(c) INTO v_found FROM ${s}.claims c
        WHERE c.scope = p_near_scopes[i] AND c.kind = 'path' AND c.name COLLATE "C" = p_near_names[i]
          AND c.session_id <> p_session;
      IF FOUND THEN v_conflicts := v_conflicts || v_found; END IF;
    END LOOP;
    FOR i IN 1 .. coalesce(cardinality(p_below_after), 0) LOOP
      SELECT jsonb_agg(to_jsonb(c)) INTO v_found FROM ${s}.claims c
        WHERE c.scope = p_below_scopes[i] AND c.kind = 'path'
          AND c.name COLLATE "C" > p_below_after[i] AND c.name COLLATE "C" < p_below_before[i]
          AND c.session_id <> p_session;
      IF v_found IS NOT NULL THEN v_conflicts := v_conflicts || v_found; END IF;
    END LOOP;`;
}

/** Each grant: the next token, the claim, and its journal entry (numbered later, journal.ts). */
function grants(s: string): string {
  // A resource claimed before (most are) moves its counter with one update; the upsert (its row
  // locked, then updated: two heap records) only for a first claim. Both run under the resource's
  // advisory lock, so no other claim inserts the row between the two.
  const fence = `UPDATE ${s}.fences SET last_token = last_token + 1
        WHERE scope = p_scopes[i] AND kind = p_kinds[i] AND name = p_names[i] RETURNING last_token INTO v_token;
      IF NOT FOUND THEN
        `;
  return `
    -- The session's ticket, else the first ticket claimed here (it becomes the session's).
    v_ticket := coalesce(v_me.ticket, p_names[array_position(p_kinds, 'ticket')]);
    FOR i IN 1 .. cardinality(p_names) LOOP
      ${fence}INSERT INTO ${s}.fences AS f (scope, kind, name, last_token) VALUES (p_scopes[i], p_kinds[i], p_names[i], 1)
        ON CONFLICT (scope, kind, name) DO UPDATE SET last_token = f.last_token + 1 RETURNING last_token INTO v_token;
      END IF;
      INSERT INTO ${s}.claims (scope, kind, name, session_id, token, acquired_at)
        VALUES (p_scopes[i], p_kinds[i], p_names[i], p_session, v_token, v_now)
        ON CONFLICT (scope, kind, name) DO UPDATE
          SET session_id = excluded.session_id, token = excluded.token, acquired_at = excluded.acquired_at;
      INSERT INTO ${s}.journal (at, session_id, repo, ticket, host, kind, subject, details)
        VALUES (v_now, p_session, CASE WHEN starts_with(p_scopes[i], 'repo:') THEN substr(p_scopes[i], 6) END,
          v_ticket, p_host, 'claim.grant', p_kinds[i] || ':' || p_names[i], jsonb_build_object('token', v_token));
      v_tokens := v_tokens || v_token;
    END LOOP;`;
}

/**
 * lanes_claim as migration 10 makes it (replacing version 7's). It reads the claimant's row without
 * a lock until the claim is known to be granted: a refusal then writes nothing (no row lock, no
 * transaction id), so its commit waits for no disk flush, and a waiter's refused retries cost the
 * server a read. (Stores made at version 10 before this body keep the earlier one, which locked the
 * row first: the same signature and answers, so no new schema version — a version would lock every
 * older lanes of a fleet out of the store for a body that answers the same.)
 */
function claimFunction(s: string): string {
  const me = (lock: string) => `
    SELECT * INTO v_me FROM ${s}.sessions WHERE id = p_session${lock};
    IF NOT FOUND THEN RETURN jsonb_build_object('status', 'unknown', 'now', v_now); END IF;
    IF v_me.ended_at IS NOT NULL THEN
      RETURN jsonb_build_object('status', 'ended', 'now', v_now, 'me', to_jsonb(v_me));
    END IF;`;
  return `
  DROP FUNCTION ${s}.lanes_claim(TEXT, TEXT[], TEXT[], TEXT[], TEXT[], TEXT, TEXT);
  CREATE FUNCTION ${s}.lanes_claim(p_session TEXT, p_scopes TEXT[], p_kinds TEXT[], p_names TEXT[], p_keys TEXT[],
    p_lock_ms TEXT, p_host TEXT, p_near_scopes TEXT[], p_near_names TEXT[], p_below_scopes TEXT[],
    p_below_after TEXT[], p_below_before TEXT[]) RETURNS jsonb LANGUAGE plpgsql AS $fn$
  DECLARE
    v_now BIGINT;
    v_me ${s}.sessions;
    v_conflicts jsonb := '[]';
    v_found jsonb;
    v_tokens BIGINT[] := '{}';
    v_token BIGINT;
    v_ticket TEXT;
    v_key TEXT;
    v_void TEXT;
  BEGIN
    -- lock_timeout for this transaction, then the claim's locks in the order given (the caller
    -- sorts them, as its transactional path does): expressions, so no statement is run for them.
    v_void := set_config('lock_timeout', p_lock_ms, true);
    FOREACH v_key IN ARRAY p_keys LOOP
      v_void := pg_advisory_xact_lock(hashtextextended(v_key, 0))::text;
    END LOOP;
    v_now := ${PG_NOW};
    -- Once granted, the session's row stays locked to the commit, so it cannot end meanwhile (sessions.ts).
    -- The client decides again on what this returns, so a conflict found here in excess only costs
    -- the transactional path; one missed here would be granted (test/store/postgres-claim-fn).
    ${conflictTest(s)}
    IF jsonb_array_length(v_conflicts) > 0 THEN${me('')}
      RETURN jsonb_build_object('status', 'conflict', 'now', v_now, 'me', to_jsonb(v_me), 'claims', v_conflicts,
        'holders', (SELECT coalesce(jsonb_agg(to_jsonb(h)), '[]') FROM ${s}.sessions h
          WHERE h.id IN (SELECT e->>'session_id' FROM jsonb_array_elements(v_conflicts) AS e)));
    END IF;
    -- Granted: the claimant's row locked only now.${me(' FOR UPDATE')}
    ${grants(s)}
    -- A claim shows its session alive; not rewritten within a second of the last sign (the
    -- heartbeat's rule). A session recorded dead is always refreshed (lapsing the record).
    IF v_me.last_seen_at < v_now - 1000 OR v_me.dead_seen_at IS NOT DISTINCT FROM v_me.last_seen_at THEN
      UPDATE ${s}.sessions SET last_seen_at = v_now WHERE id = p_session;
    END IF;
    RETURN jsonb_build_object('status', 'granted', 'now', v_now, 'tokens', to_jsonb(v_tokens));
  END
  $fn$;`;
}

export function claimFunctions(s: string): string {
  return `${claimFunction(s)}
  -- A release in one round trip: each claim deleted by its key, with its journal entry.
  CREATE OR REPLACE FUNCTION ${s}.lanes_release(p_session TEXT, p_scopes TEXT[], p_kinds TEXT[], p_names TEXT[],
    p_lock_ms TEXT, p_host TEXT) RETURNS SETOF ${s}.claims LANGUAGE plpgsql AS $fn$
  DECLARE
    v_gone ${s}.claims;
    v_ticket TEXT;
    v_read BOOLEAN := false;
    v_void TEXT;
  BEGIN
    v_void := set_config('lock_timeout', p_lock_ms, true);
    FOR i IN 1 .. cardinality(p_names) LOOP
      DELETE FROM ${s}.claims c
        WHERE c.scope = p_scopes[i] AND c.kind = p_kinds[i] AND c.name = p_names[i] AND c.session_id = p_session
        RETURNING c.* INTO v_gone;
      CONTINUE WHEN NOT FOUND;
      IF NOT v_read THEN
        SELECT ticket INTO v_ticket FROM ${s}.sessions WHERE id = p_session;
        v_read := true;
      END IF;
      INSERT INTO ${s}.journal (at, session_id, repo, ticket, host, kind, subject, details)
        VALUES (${PG_NOW}, p_session, CASE WHEN starts_with(v_gone.scope, 'repo:') THEN substr(v_gone.scope, 6) END,
          v_ticket, p_host, 'claim.release', v_gone.kind || ':' || v_gone.name, jsonb_build_object('token', v_gone.token));
      RETURN NEXT v_gone;
    END LOOP;
  END
  $fn$;
`;
}
