// The PostgreSQL schema: the same tables as SQLite's (times in milliseconds on the SERVER's clock,
// tokens as BIGINT), in a schema of their own. Each migration runs in one transaction together
// with the version bump, under a transaction-level advisory lock so concurrent first opens
// serialize; a crash mid-migration leaves the previous version intact.

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
  // As SQLite's second migration: a session proven dead is recorded once (the record lapses when
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

/** The server's clock in milliseconds since the epoch (clock_timestamp: the time of the statement, not of the transaction start). */
export const PG_NOW = `(extract(epoch from clock_timestamp()) * 1000)::bigint`;

/** Oldest server lanes runs on (SHOW server_version_num). */
export const PG_MIN_VERSION = 130000;
