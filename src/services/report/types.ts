import type { Spend } from '../spend/spend.js';
import type { SessionState } from '../../core/liveness.js';
import type { TimeInText } from '../../core/times-in.js';
import type { AttentionState } from '../../store/types.js';

/** A session as the report names it: its label, agent and ticket first, the id beside them. */
export interface SessionName {
  id: string;
  label: string | null;
  agent: string | null;
  ticket: string | null;
  host: string | null;
  /** The session it works for (a subagent's: store/types.ts parent), or null. */
  parent: string | null;
  /** Now: live, dead or ended (null: a session the store no longer has). */
  state: SessionState | null;
}

export interface ReportItem {
  kind:
    | 'landed'
    | 'committed'
    | 'refused'
    | 'denied'
    | 'unchecked'
    | 'overridden'
    | 'taken over'
    | 'interrupted'
    | 'collision'
    | 'adopted'
    | 'seat ran out'
    | 'seat changed'
    | 'died'
    | 'teardown failed'
    | 'budget';
  at: number;
  seq: number;
  /** The journal's own kind (`claim.refuse`, `hook.deny`, …): `lanes log --kind` finds it. */
  journalKind: string;
  session: SessionName | null;
  subject: string;
  /** One sentence. */
  text: string;
  /** The moments `text` names (written in UTC), as epoch ms: a page writes them in its reader's zone. */
  times?: TimeInText[];
}

/** Everything of one ticket (or of no ticket) in one repository. */
export interface TicketReport {
  repo: string | null;
  /** Where a restore or a fix is run from (null: not a plain repository). */
  mainWorktree: string | null;
  ticket: string | null;
  sessions: SessionName[];
  items: ReportItem[];
}

/** One ticket (or session without one) of the morning's review list, at its most pressing state (report/review.ts). */
export interface ReviewEntry {
  ticket: string | null;
  session: SessionName;
  status: 'ready' | 'landed' | 'pr open' | 'finished' | 'conflict' | 'check failed' | 'stopped' | 'waiting' | 'died';
  what: string;
  /** The one command that moves it. */
  command: string;
  /** Its pull request (lanes pr), when it has one open. */
  url?: string;
  /** The moments `what` names (written in UTC), as epoch ms: a page writes them in its reader's zone. */
  times?: TimeInText[];
}

/** One thing a person should settle, and the one command that settles it. */
export interface NeedsYou {
  what: string;
  command: string;
  /** The moments `what` names (written in UTC), as epoch ms: a page writes them in its reader's zone. */
  times?: TimeInText[];
}

export interface NightReport {
  /** The window: from this time (null with afterSeq) until `until`, store clock. */
  from: number | null;
  afterSeq: number | null;
  until: number;
  /** The last journal entry read (the next `--since-last` starts after it). */
  lastSeq: number | null;
  store: string;
  counts: { sessions: number; landed: number; refused: number; died: number };
  needsYou: NeedsYou[];
  /** Per ticket, in the order a lead settles them: ready, landed, pull request open (its checks), finished, stopped by the queue, waiting, died. */
  review: ReviewEntry[];
  tickets: TicketReport[];
  /**
   * Every death of the window, read from the journal (session.died) whatever ended the session
   * later (gc, the reap, lanes stop, its wrapper), and every open session dead now.
   */
  died: {
    session: SessionName;
    /** How: killed by a signal, exited with a code, owner gone. */
    why: string;
    /** When it died (store clock); null for a session found dead now whose death the journal lacks. */
    at: number | null;
    worktree: string | null;
    /** Files changed and not committed in its worktree now (null: no worktree left to look at). */
    unsavedFiles: number | null;
    lastSnapshot: string | null;
    /** A restore of its last snapshot, run from the repository's main worktree. */
    restore: string | null;
    /** The one command that goes on with its work, typed as shown in a person's shell. */
    continue: string;
    /** Its last screen (lanes new in tmux kept it): `lanes attach SESSION` shows it; null when none. */
    lastScreen: string | null;
  }[];
  /** Tickets whose last session ended (not died) with commits its branch has and the main branch lacks: waiting to land. */
  finished: { ticket: string; session: SessionName; branch: string; ahead: number; command: string }[];
  sharedWorktrees: { worktree: string; sessions: SessionName[] }[];
  sameTicket: { ticket: string; sessions: SessionName[] }[];
  waits: { session: SessionName; resources: string[]; since: number; heldBy: SessionName[]; live: boolean }[];
  /** Live sessions showing what their agent signalled: waiting for you, finished, denied (store/types.ts Attention). */
  attention: {
    session: SessionName;
    state: AttentionState;
    since: number;
    why: string | null;
    worktree: string | null;
    /** The agent's pid: its terminal is where a waiting one is answered. */
    pid: number;
    /** Where lanes new started it (`tmux NAME`), or null. */
    terminal: string | null;
  }[];
  /** Journal rows of the window lanes could not read whole (damaged, another writer's): seq, kind and what is wrong. */
  unreadable: { seq: number; kind: string; why: string }[];
  /** Notification channels whose last delivery in the window failed (journal notify.fail). */
  notifyFailing: { channel: string; at: number; error: string }[];
  /** Seats (agent logins) that ran out and are not usable yet, with their reset (services/seats/). */
  seatsOut: { name: string; agent: string; pool: string; until: number; why: string | null; freeInPool: number }[];
  /**
   * This host's seats that are never leased because the login's own files (or this repository's)
   * would bring a billed-per-call key back: the pool is smaller than it looks until a person takes
   * the key out (services/seats/billed-sources.ts; never the key itself).
   */
  seatsBilled: { name: string; agent: string; pool: string; sources: { file: string; what: string }[] }[];
  /** What the night's sessions spent (issue 50, item 1): services/spend. Absent when it could not be read. */
  spend?: Spend;
}
