// The PostgreSQL schema: the same tables as SQLite's (times in milliseconds on the SERVER's clock,
// tokens as BIGINT), in a schema of their own. Each migration runs in one transaction together
// with the version bump, under a transaction-level advisory lock so concurrent first opens
// serialize; a crash mid-migration leaves the previous version intact.

/** The server's clock in milliseconds since the epoch (clock_timestamp: the time of the statement, not of the transaction start). */
export const PG_NOW = `(extract(epoch from clock_timestamp()) * 1000)::bigint`;

export const PG_MIGRATIONS: ((s: string) => string)[] = [
  (s) => `
  CREATE SCHEMA IF NOT EXISTS ${s};
  CREATE TABLE ${s}.meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
  CREATE TABLE ${s}.sessions (
    id TEXT PRIMARY KEY,
    label TEXT, agent TEXT, ticket TEXT, repo TEXT, worktree TEXT,
    cwd TEXT NOT NULL,
    host TEXT NOT NULL, boot_id TEXT NOT NULL, pid INTEGER NOT NULL, start_time TEXT NOT NULL,
    command TEXT,
    created_at BIGINT NOT NULL, last_seen_at BIGINT NOT NULL,
    ended_at BIGINT, end_reason TEXT
  );
  CREATE INDEX sessions_by_end ON ${s}.sessions (ended_at);
  CREATE TABLE ${s}.fences (scope TEXT NOT NULL, kind TEXT NOT NULL, name TEXT NOT NULL,
    last_token BIGINT NOT NULL, PRIMARY KEY (scope, kind, name));
  CREATE TABLE ${s}.claims (scope TEXT NOT NULL, kind TEXT NOT NULL, name TEXT NOT NULL,
    session_id TEXT NOT NULL, token BIGINT NOT NULL, acquired_at BIGINT NOT NULL,
    PRIMARY KEY (scope, kind, name));
  CREATE INDEX claims_by_session ON ${s}.claims (session_id);
  CREATE INDEX claims_by_scope_kind ON ${s}.claims (scope, kind);
  CREATE TABLE ${s}.gates (name TEXT PRIMARY KEY, token BIGINT NOT NULL, session_id TEXT,
    host TEXT, boot_id TEXT, pid INTEGER, start_time TEXT,
    command TEXT, acquired_at BIGINT NOT NULL, lease_until BIGINT NOT NULL);
  CREATE TABLE ${s}.state (session_id TEXT PRIMARY KEY, value TEXT NOT NULL,
    version BIGINT NOT NULL, updated_at BIGINT NOT NULL);
  `,
  // 2: a claim in one round trip (claims.ts). The function takes the claim's locks, checks the
  // claimant, and either grants (no other session holds anything that conflicts) or returns the
  // conflicting claims and their holders, granting nothing: the client judges those holders (the
  // pid proof needs the holder's host) and blocks, or takes over in a transaction of its own.
  (s) => `
  CREATE OR REPLACE FUNCTION ${s}.lanes_claim(p_session TEXT, p_scopes TEXT[], p_kinds TEXT[], p_names TEXT[],
    p_keys TEXT[], p_lock_ms TEXT) RETURNS jsonb LANGUAGE plpgsql AS $fn$
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
    UPDATE ${s}.sessions SET last_seen_at = v_now WHERE id = p_session;
    RETURN jsonb_build_object('status', 'granted', 'now', v_now, 'tokens', to_jsonb(v_tokens));
  END
  $fn$;
  -- A release in one round trip, under the same lock_timeout as every transaction.
  CREATE OR REPLACE FUNCTION ${s}.lanes_release(p_session TEXT, p_scopes TEXT[], p_kinds TEXT[], p_names TEXT[],
    p_lock_ms TEXT) RETURNS SETOF ${s}.claims LANGUAGE plpgsql AS $fn$
  BEGIN
    PERFORM set_config('lock_timeout', p_lock_ms, true);
    RETURN QUERY DELETE FROM ${s}.claims c USING unnest(p_scopes, p_kinds, p_names) AS r(scope, kind, name)
      WHERE c.scope = r.scope AND c.kind = r.kind AND c.name = r.name AND c.session_id = p_session RETURNING c.*;
  END
  $fn$;
  `,
  // 3 (as SQLite's second migration): a session proven dead is recorded once (the record lapses when
  // last_seen_at moves), with a partial index of the open sessions not recorded dead. Path claims
  // overlapping a path are found by prefix (core/path-overlap.ts): a range scan in byte order,
  // which needs an index in the "C" collation (the database's default may order otherwise).
  (s) => `
  ALTER TABLE ${s}.sessions ADD COLUMN dead_seen_at BIGINT, ADD COLUMN dead_why TEXT;
  CREATE INDEX sessions_unproven ON ${s}.sessions (created_at, id)
    WHERE ended_at IS NULL AND dead_seen_at IS DISTINCT FROM last_seen_at;
  CREATE INDEX sessions_recorded_dead ON ${s}.sessions (last_seen_at)
    WHERE ended_at IS NULL AND dead_seen_at = last_seen_at;
  CREATE INDEX claims_by_name_c ON ${s}.claims (scope, kind, name COLLATE "C");
  `,
];

export const PG_SCHEMA_VERSION = PG_MIGRATIONS.length;

/** Oldest server lanes runs on (SHOW server_version_num). */
export const PG_MIN_VERSION = 130000;
