// The PostgreSQL schema: the same tables as SQLite's (times in milliseconds on the SERVER's clock,
// tokens as BIGINT), in a schema of their own. Each migration runs in one transaction together
// with the version bump, under a transaction-level advisory lock so concurrent first opens
// serialize; a crash mid-migration leaves the previous version intact.

export { PG_NOW } from './clock.js';

import { claimFunctionsV5 } from './claim-functions-v5.js';
import { claimFunctions } from './claim-functions.js';
import { journalLockKey } from './journal-lock.js';

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
  (s) => claimFunctionsV5(s, false),
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
  // 4: the decision journal (numbered from a sequence under one advisory lock held to commit:
  // journal.ts) and the claim waits; lanes_claim and lanes_release journal their decisions in
  // their own transaction, so they take the writer's host.
  (s) => `
  CREATE SEQUENCE ${s}.journal_seq;
  CREATE TABLE ${s}.journal (id BIGSERIAL PRIMARY KEY, seq BIGINT UNIQUE, at BIGINT NOT NULL,
    session_id TEXT, repo TEXT, ticket TEXT, host TEXT NOT NULL,
    kind TEXT NOT NULL, subject TEXT NOT NULL, details JSONB NOT NULL);
  CREATE INDEX journal_by_at ON ${s}.journal (at);
  CREATE INDEX journal_unnumbered ON ${s}.journal (id) WHERE seq IS NULL;
  -- Numbers the committed entries not numbered yet, in the order they were written; one caller at
  -- a time (another one running numbers them: this one returns). See journal.ts.
  CREATE FUNCTION ${s}.lanes_journal_number() RETURNS void LANGUAGE plpgsql AS $fn$
  DECLARE r RECORD;
  BEGIN
    IF NOT pg_try_advisory_xact_lock(hashtextextended('${journalLockKey(s)}', 0)) THEN RETURN; END IF;
    FOR r IN SELECT id FROM ${s}.journal WHERE seq IS NULL ORDER BY id LOOP
      UPDATE ${s}.journal SET seq = nextval('${s}.journal_seq') WHERE id = r.id;
    END LOOP;
  END
  $fn$;
  CREATE TABLE ${s}.waits (id BIGSERIAL PRIMARY KEY, session_id TEXT NOT NULL, resources TEXT NOT NULL,
    host TEXT NOT NULL, boot_id TEXT NOT NULL, pid INTEGER NOT NULL, start_time TEXT NOT NULL,
    since BIGINT NOT NULL, seen_at BIGINT NOT NULL);
  DROP FUNCTION ${s}.lanes_claim(TEXT, TEXT[], TEXT[], TEXT[], TEXT[], TEXT);
  DROP FUNCTION ${s}.lanes_release(TEXT, TEXT[], TEXT[], TEXT[], TEXT);
  ${claimFunctionsV5(s, true)}
  `,
  // 5: fewer index entries per claim and per journal entry (each is WAL written with the commit):
  // claims_by_scope_kind duplicates the primary key's prefix; the journal is pruned by id (the
  // order of writing follows time) so needs no index on time; an entry is written unnumbered, so
  // the index of numbers leaves out NULL (readers ask for numbered entries only); the claim
  // functions as claim-functions-v5.ts makes them.
  (s) => `
  DROP INDEX ${s}.claims_by_scope_kind;
  DROP INDEX ${s}.journal_by_at;
  ALTER TABLE ${s}.journal DROP CONSTRAINT journal_seq_key;
  CREATE UNIQUE INDEX journal_by_seq ON ${s}.journal (seq) WHERE seq IS NOT NULL;
  ${claimFunctionsV5(s, true)}
  `,
  // 6 (as SQLite's fifth): what the agent last signalled a person may want to see (store/types.ts
  // Attention), and where a session lanes started runs (its tmux session).
  (s) => `
  ALTER TABLE ${s}.sessions ADD COLUMN attention TEXT, ADD COLUMN attention_at BIGINT, ADD COLUMN attention_why TEXT,
    ADD COLUMN terminal TEXT;
  `,
  // 7 (as SQLite's sixth migration): the index of the paths sessions edited (touched-types.ts).
  (s) => `
  CREATE TABLE ${s}.touched (repo TEXT NOT NULL, key TEXT NOT NULL, session_id TEXT NOT NULL, path TEXT NOT NULL,
    PRIMARY KEY (repo, key, session_id, path));
  CREATE INDEX touched_by_session ON ${s}.touched (session_id);
  `,
  // 8 (as SQLite's seventh): seats, the agent logins sessions lease (seat-types.ts).
  (s) => `
  CREATE TABLE ${s}.seats (host TEXT NOT NULL, name TEXT NOT NULL, agent TEXT NOT NULL, pool TEXT NOT NULL,
    env JSONB NOT NULL, concurrency INTEGER NOT NULL, pay_per_use BOOLEAN NOT NULL DEFAULT false,
    exhausted_until BIGINT, exhausted_at BIGINT, exhausted_why TEXT, created_at BIGINT NOT NULL,
    PRIMARY KEY (host, name));
  `,
  // 9: a session's claims in key order from its index (lanes ls reads a session's first claims and
  // pages through them, as SQLite's index by session does: its entries carry the key).
  (s) => `
  CREATE INDEX claims_by_session_key ON ${s}.claims (session_id, scope COLLATE "C", kind COLLATE "C", name COLLATE "C");
  DROP INDEX ${s}.claims_by_session;
  `,
  // 10: a claim and a release that cost the server less (claim-functions.ts): statements by key that
  // keep their plans, locks taken in the caller's order, a path's overlaps looked up by name.
  (s) => claimFunctions(s),
  // 11 (as SQLite's ninth): one agent, one session: the agent's own session bound to its run, the
  // session a subagent's was made for, the task the agent was started with; how a session died,
  // its setup's state and the slug of its templated names.
  (s) => `
  ALTER TABLE ${s}.sessions ADD COLUMN conversation TEXT, ADD COLUMN conversation_pid INTEGER, ADD COLUMN parent_id TEXT,
    ADD COLUMN task TEXT, ADD COLUMN died TEXT, ADD COLUMN setup_state TEXT, ADD COLUMN env_slug TEXT;
  CREATE INDEX sessions_by_conversation ON ${s}.sessions (conversation) WHERE conversation IS NOT NULL;
  CREATE INDEX sessions_teardown_due ON ${s}.sessions (env_slug) WHERE setup_state IN ('done', 'tearing', 'failed');
  `,
  // 12 (as SQLite's tenth): the recorded dead by host and worktree (dead.ts), for `lanes ls`.
  (s) => `
  CREATE INDEX sessions_dead_by_worktree ON ${s}.sessions (host, worktree)
    WHERE ended_at IS NULL AND dead_seen_at = last_seen_at;
  `,
];

export const PG_SCHEMA_VERSION = PG_MIGRATIONS.length;

/** Oldest server lanes runs on (SHOW server_version_num). */
export const PG_MIN_VERSION = 130000;
