// What the dashboard's server sends its page (JSON). Shared by the server and the page (type only).

export type SessionStateName = 'live' | 'dead' | 'ended';

export interface UiClaim {
  resource: string;
  token: number;
  since: number;
}

export interface UiSession {
  id: string;
  state: SessionStateName;
  /** Why it is dead or ended ('' when live). */
  why: string;
  agent: string | null;
  ticket: string | null;
  label: string | null;
  host: string;
  pid: number;
  /** The repository's id (git common dir) and a short name for it. */
  repo: string | null;
  repoName: string;
  worktree: string | null;
  command: string | null;
  /** From git, for sessions of this host whose worktree exists (null otherwise or not read yet). */
  branch: string | null;
  uncommitted: number | null;
  ahead: number | null;
  target: string | null;
  claims: UiClaim[];
  createdAt: number;
  lastSeenAt: number;
  endedAt: number | null;
  endReason: string | null;
  /** Where lanes new started it (`tmux NAME`, `background LOGFILE`), or null. */
  terminal: string | null;
  /** What its agent signalled through its hooks (waiting for you, finished, denied), or null. */
  attention: { state: 'waiting' | 'finished' | 'denied'; at: number; why: string | null; times?: UiTime[] } | null;
  /** The session it works for (a Claude Code subagent's worktree session), or null: shown under it. */
  parent: string | null;
  /** The task it was started with (lanes new --prompt), or null. */
  task: string | null;
  /** How it died (kept after its end), or null. */
  died: string | null;
}

export interface UiWait {
  session: string;
  /** Whether the waiting process still runs. */
  live: boolean;
  since: number;
  resources: string[];
  heldBy: { resource: string; session: string; state: SessionStateName }[];
}

/**
 * A moment a text names, as the text writes it (in UTC: the CLI's words) and as epoch ms: the page
 * writes it again in its reader's time zone (client/format.ts), so the page shows one clock
 * (core/times-in.ts).
 */
export interface UiTime {
  text: string;
  at: number;
}

export interface UiJournalEntry {
  seq: number;
  at: number;
  session: string | null;
  repo: string | null;
  ticket: string | null;
  host: string;
  kind: string;
  subject: string;
  details: Record<string, unknown>;
  /** What happened, in one sentence (the same as `lanes log`). */
  text: string;
  /** The moments `text` names (core/times-in.ts), when it names any. */
  times?: UiTime[];
  /** What could not be read of a damaged row (the store's JournalEntry.unreadable). */
  unreadable?: string;
}

export interface UiFileStat {
  path: string;
  added: number;
  removed: number;
}

export interface UiConflicts {
  repo: string;
  repoName: string;
  target: string | null;
  pairs: { a: string; b: string; both: string[]; conflicts: string[] }[];
  sameTicket: { ticket: string; sessions: string[] }[];
  competing: { session: string; target: string; files: string[] }[];
  /** Why the prediction could not be made (no main branch, …). */
  error: string | null;
  at: number;
}

export interface UiSnapshot {
  repo: string;
  repoName: string;
  owner: string;
  n: number;
  ref: string;
  /** Seconds since the epoch (git's commit time). */
  time: number;
  subject: string;
  /** The command that restores it, to run inside the repository. */
  restore: string;
}

export interface FleetView {
  /** The store's clock when read. */
  at: number;
  /** Grows with every change pushed (a page that has this one already skips it). */
  version: number;
  host: string;
  store: { backend: string; location: string };
  sessions: UiSession[];
  /** Ended sessions older than the window or past the cap are only counted. */
  endedHidden: number;
  waits: UiWait[];
  /** Recent waits refused because they would close a cycle (journal entries claim.cycle). */
  cycles: UiJournalEntry[];
  conflicts: UiConflicts[];
  snapshots: UiSnapshot[];
  /** Names of environment variables whose values are hidden (never the values). */
  hidden: string[];
}

export type ActionName = 'snapshot' | 'end' | 'adopt' | 'release' | 'ready' | 'tell';

export interface ActionResult {
  ok: boolean;
  message: string;
  error?: { code: string; message: string; hint: string | null };
}

/** `lanes report` as the page shows it (a part of the library's NightReport; routes.ts checks it is one). */
export interface UiReportName {
  id: string;
  label: string | null;
  agent: string | null;
  ticket: string | null;
}

export interface UiReport {
  from: number | null;
  until: number;
  counts: { sessions: number; landed: number; refused: number; died: number };
  needsYou: { what: string; command: string; times?: UiTime[] }[];
  /** What the night's sessions spent (lanes report's Spend; services/spend). */
  spend?: {
    total: { input: number; output: number; cacheRead: number; cacheWrite: number };
    costUsd: number;
    sessions: {
      session: string;
      ticket: string | null;
      measured: boolean;
      costUsd: number | null;
      tokens?: { input: number; output: number; cacheRead: number; cacheWrite: number };
    }[];
  };
  /** Per ticket, in the order a lead settles them (lanes report's review list; report/review.ts). */
  review?: {
    ticket: string | null;
    status: string;
    what: string;
    command: string;
    url?: string;
    session: UiReportName;
    times?: UiTime[];
  }[];
  /** Seats (agent logins) that ran out, until their reset (lanes report's 'Seats out'). */
  seatsOut?: { name: string; agent: string; pool: string; until: number; why: string | null; freeInPool: number }[];
  tickets: {
    ticket: string | null;
    repo: string | null;
    mainWorktree: string | null;
    sessions: UiReportName[];
    items: { kind: string; at: number; text: string; session: UiReportName | null; times?: UiTime[] }[];
  }[];
}

/** A session's work as the diff view gets it: `lanes diff --json --patch` (SessionDiff), large patches left out. */
export interface UiDiff {
  session: string;
  source: 'worktree' | 'branch';
  worktree: string | null;
  branch: string | null;
  snapshot: string | null;
  target: string | null;
  base: string;
  head: string | null;
  files: UiDiffFile[];
  notes: string[];
}

export interface UiDiffFile {
  path: string;
  oldPath?: string;
  status: 'added' | 'modified' | 'deleted' | 'renamed';
  additions: number;
  deletions: number;
  binary: boolean;
  uncommitted: boolean;
  hunks?: string;
  /** Its patch is too large for the page (`lanes diff` shows it). */
  patchLeftOut?: true;
}
