import type { SqliteDb } from './driver.js';
import { LanesError } from '../../core/errors.js';

// Each entry migrates from version i to i+1 and runs in the same IMMEDIATE transaction as the
// version bump, so a crash mid-migration leaves the previous version intact.
export const MIGRATIONS: string[] = [
  `
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
  CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    label TEXT, agent TEXT, ticket TEXT, repo TEXT, worktree TEXT,
    cwd TEXT NOT NULL,
    host TEXT NOT NULL, boot_id TEXT NOT NULL, pid INTEGER NOT NULL, start_time TEXT NOT NULL,
    command TEXT,
    created_at INTEGER NOT NULL, last_seen_at INTEGER NOT NULL,
    ended_at INTEGER, end_reason TEXT
  );
  CREATE INDEX sessions_by_end ON sessions (ended_at);
  -- One row per resource ever granted: the fencing counter outlives releases and takeovers.
  CREATE TABLE fences (scope TEXT NOT NULL, kind TEXT NOT NULL, name TEXT NOT NULL,
    last_token INTEGER NOT NULL, PRIMARY KEY (scope, kind, name));
  CREATE TABLE claims (scope TEXT NOT NULL, kind TEXT NOT NULL, name TEXT NOT NULL,
    session_id TEXT NOT NULL, token INTEGER NOT NULL, acquired_at INTEGER NOT NULL,
    PRIMARY KEY (scope, kind, name));
  CREATE INDEX claims_by_session ON claims (session_id);
  CREATE INDEX claims_by_scope_kind ON claims (scope, kind);
  -- A gate row outlives its holders (pid NULL = free) so its token only ever grows.
  CREATE TABLE gates (name TEXT PRIMARY KEY, token INTEGER NOT NULL, session_id TEXT,
    host TEXT, boot_id TEXT, pid INTEGER, start_time TEXT,
    command TEXT, acquired_at INTEGER NOT NULL, lease_until INTEGER NOT NULL);
  CREATE TABLE state (session_id TEXT PRIMARY KEY, value TEXT NOT NULL,
    version INTEGER NOT NULL, updated_at INTEGER NOT NULL);
  `,
  // A session proven dead is recorded once: dead_seen_at is the last_seen_at the judge saw, so the
  // record lapses by itself when anything refreshes the session (a heartbeat, a re-attach). The
  // partial indexes hold exactly the open sessions not recorded dead (what the hot path reads) and
  // those recorded dead (what lanes gc and the background reaping read).
  `
  ALTER TABLE sessions ADD COLUMN dead_seen_at INTEGER;
  ALTER TABLE sessions ADD COLUMN dead_why TEXT;
  CREATE INDEX sessions_unproven ON sessions (created_at, id)
    WHERE ended_at IS NULL AND dead_seen_at IS NOT last_seen_at;
  CREATE INDEX sessions_recorded_dead ON sessions (last_seen_at)
    WHERE ended_at IS NULL AND dead_seen_at = last_seen_at;
  `,
  // The decision journal and the claim waits (store/journal-types.ts). Migration 4 reshapes the
  // journal (no AUTOINCREMENT, no index on time).
  `
  CREATE TABLE journal (seq INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL,
    session_id TEXT, repo TEXT, ticket TEXT, host TEXT NOT NULL,
    kind TEXT NOT NULL, subject TEXT NOT NULL, details TEXT NOT NULL);
  CREATE INDEX journal_by_at ON journal (at);
  CREATE TABLE waits (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, resources TEXT NOT NULL,
    host TEXT NOT NULL, boot_id TEXT NOT NULL, pid INTEGER NOT NULL, start_time TEXT NOT NULL,
    since INTEGER NOT NULL, seen_at INTEGER NOT NULL);
  `,
  // Fewer pages per claim. Every page a claim's transaction changes is written and flushed with its
  // commit (a grant commits with synchronous=FULL), so each b-tree it touches costs: claims and
  // fences become WITHOUT ROWID (the table is its primary key, one b-tree instead of two),
  // claims_by_scope_kind goes (the primary key's prefix serves it), and the journal loses
  // AUTOINCREMENT (a write to sqlite_sequence per commit) and its time index (pruning walks from
  // the oldest number; --since scans, as --session and --ticket do). Numbers stay never reused:
  // meta.journal_floor keeps the highest number ever pruned, and a new entry is numbered above it
  // (journal.ts). Together these brought a claim/release cycle back to its cost before the journal.
  `
  CREATE TABLE fences_v4 (scope TEXT NOT NULL, kind TEXT NOT NULL, name TEXT NOT NULL,
    last_token INTEGER NOT NULL, PRIMARY KEY (scope, kind, name)) WITHOUT ROWID;
  INSERT INTO fences_v4 SELECT scope, kind, name, last_token FROM fences;
  DROP TABLE fences;
  ALTER TABLE fences_v4 RENAME TO fences;
  CREATE TABLE claims_v4 (scope TEXT NOT NULL, kind TEXT NOT NULL, name TEXT NOT NULL,
    session_id TEXT NOT NULL, token INTEGER NOT NULL, acquired_at INTEGER NOT NULL,
    PRIMARY KEY (scope, kind, name)) WITHOUT ROWID;
  INSERT INTO claims_v4 SELECT scope, kind, name, session_id, token, acquired_at FROM claims;
  DROP TABLE claims;
  ALTER TABLE claims_v4 RENAME TO claims;
  CREATE INDEX claims_by_session ON claims (session_id);
  CREATE TABLE journal_v4 (seq INTEGER PRIMARY KEY, at INTEGER NOT NULL,
    session_id TEXT, repo TEXT, ticket TEXT, host TEXT NOT NULL,
    kind TEXT NOT NULL, subject TEXT NOT NULL, details TEXT NOT NULL);
  INSERT INTO journal_v4 SELECT seq, at, session_id, repo, ticket, host, kind, subject, details FROM journal;
  INSERT INTO meta (key, value) SELECT 'journal_floor', seq FROM sqlite_sequence WHERE name = 'journal';
  DROP TABLE journal;
  ALTER TABLE journal_v4 RENAME TO journal;
  `,
  // What the agent last signalled a person may want to see (store/types.ts Attention): set by its
  // hooks (a permission prompt, the turn's end, a denied call), cleared when it works again; and
  // where a session lanes started runs (`tmux lanes-seat-3`, `lanes new`).
  `
  ALTER TABLE sessions ADD COLUMN attention TEXT;
  ALTER TABLE sessions ADD COLUMN attention_at INTEGER;
  ALTER TABLE sessions ADD COLUMN attention_why TEXT;
  ALTER TABLE sessions ADD COLUMN terminal TEXT;
  `,
  // The paths each session's agent edited, indexed by repository and folded path (touched-types.ts):
  // a pre-edit check reads the rows of the path at hand, not every live session's list. Filled as
  // sessions edit from now on (their state keeps the lists; a turn's end re-indexes the whole list).
  `
  CREATE TABLE touched (repo TEXT NOT NULL, key TEXT NOT NULL, session_id TEXT NOT NULL, path TEXT NOT NULL,
    PRIMARY KEY (repo, key, session_id, path)) WITHOUT ROWID;
  CREATE INDEX touched_by_session ON touched (session_id);
  `,
  // Seats: agent logins sessions lease (seat-types.ts), per host; their leases are claims.
  `
  CREATE TABLE seats (host TEXT NOT NULL, name TEXT NOT NULL, agent TEXT NOT NULL, pool TEXT NOT NULL,
    env TEXT NOT NULL, concurrency INTEGER NOT NULL, pay_per_use INTEGER NOT NULL DEFAULT 0,
    exhausted_until INTEGER, exhausted_at INTEGER, exhausted_why TEXT, created_at INTEGER NOT NULL,
    PRIMARY KEY (host, name)) WITHOUT ROWID;
  `,
  // A line in front of each gate (gate-line.ts): tickets issued and served, when the current turn
  // is due to end, until when the next in line claims it, and how long the first in line may take
  // to use its turn before those behind skip it. A gate row may now exist free with token 0 (made
  // by the first to join its line).
  `
  ALTER TABLE gates ADD COLUMN q_issued INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE gates ADD COLUMN q_served INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE gates ADD COLUMN q_turn_end INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE gates ADD COLUMN q_claim_until INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE gates ADD COLUMN q_head_deadline INTEGER NOT NULL DEFAULT 0;
  `,
  // One agent, one session (store/types.ts SessionRecord): the agent's own session bound to the run
  // lanes launched it in (its hooks find the run by it), the session a subagent's was made for, and
  // the task the agent was started with. Nothing dies unseen: how a session died (kept after its
  // end), whether its [session] setup ran and its teardown is still due, and the slug its
  // templated names use (unique among sessions whose teardown is due).
  `
  ALTER TABLE sessions ADD COLUMN conversation TEXT;
  ALTER TABLE sessions ADD COLUMN conversation_pid INTEGER;
  ALTER TABLE sessions ADD COLUMN parent_id TEXT;
  ALTER TABLE sessions ADD COLUMN task TEXT;
  ALTER TABLE sessions ADD COLUMN died TEXT;
  ALTER TABLE sessions ADD COLUMN setup_state TEXT;
  ALTER TABLE sessions ADD COLUMN env_slug TEXT;
  CREATE INDEX sessions_by_conversation ON sessions (conversation) WHERE conversation IS NOT NULL;
  CREATE INDEX sessions_teardown_due ON sessions (env_slug) WHERE setup_state IN ('done', 'tearing', 'failed');
  `,
  // The recorded dead by host and worktree (dead.ts): `lanes ls` finds the worktrees where dead
  // sessions may have left unsaved work, and the dead sessions in the dirty ones, in this index
  // instead of reading every dead session (thousands, after months of nights).
  `
  CREATE INDEX sessions_dead_by_worktree ON sessions (host, worktree)
    WHERE ended_at IS NULL AND dead_seen_at = last_seen_at;
  `,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

function currentVersion(db: SqliteDb): number {
  const hasMeta = db.prepare(`SELECT 1 FROM sqlite_master WHERE type='table' AND name='meta'`).get();
  if (!hasMeta) return 0;
  const row = db.prepare(`SELECT value FROM meta WHERE key='schema_version'`).get() as { value: string } | undefined;
  return row ? Number(row.value) : 0;
}

export function migrate(db: SqliteDb, file: string): number {
  const seen = currentVersion(db);
  if (seen > SCHEMA_VERSION) throw newerSchema(file, seen);
  if (seen === SCHEMA_VERSION) return seen;
  const run = db.transaction(() => {
    // Re-read inside the write lock: another process may have migrated meanwhile.
    const start = currentVersion(db);
    if (start > SCHEMA_VERSION) throw newerSchema(file, start);
    for (let v = start; v < SCHEMA_VERSION; v++) db.exec(MIGRATIONS[v] ?? '');
    db.prepare(
      `INSERT INTO meta (key, value) VALUES ('schema_version', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
    ).run(String(SCHEMA_VERSION));
  });
  run.immediate();
  return SCHEMA_VERSION;
}

/** The schema version of a store that cannot be changed now (a full disk): current, or an error. */
export function schemaVersionOf(db: SqliteDb, file: string): number {
  const seen = currentVersion(db);
  if (seen > SCHEMA_VERSION) throw newerSchema(file, seen);
  if (seen < SCHEMA_VERSION)
    throw new LanesError('E_STORE_FULL', `the store ${file} needs an upgrade, and its disk is full`, {
      hint: 'free some space on that filesystem and run the command again; nothing was changed',
      details: { file, schemaVersion: seen },
    });
  return seen;
}

function newerSchema(file: string, seen: number): LanesError {
  return new LanesError(
    'E_STORE_NEWER',
    `the store ${file} has schema version ${seen}, newer than this lanes understands (${SCHEMA_VERSION})`,
    {
      hint: 'upgrade lanes (npm install -g lanes@latest), or point --store/LANES_STORE at another file; the store was not changed',
      details: { file, schemaVersion: seen, supported: SCHEMA_VERSION },
    },
  );
}
