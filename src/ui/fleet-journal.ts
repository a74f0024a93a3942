// The journal as the dashboard follows it: the entries after the last one it saw (numbers are in
// commit order: none missed, none repeated), read when the store's change mark says one came. Each
// batch goes to the pages; what it records decides what is read again: the store after a change
// of sessions or claims (the rest, hook denies, commits, lands…, are news only), a session's
// worktree after its commit, snapshot or land.
import type { JournalEntry, Lanes } from '../index.js';
import { toUiJournal } from './fleet-map.js';
import type { UiJournalEntry } from './view-types.js';

const STORE_AREAS = ['session.', 'claim.'];
const STORE_KINDS = new Set(['attention', 'adopt', 'doctor.fix']);
const GIT_KINDS = new Set(['commit', 'snapshot', 'restore', 'land', 'sweep.flag', 'adopt', 'session.end']);

export const changesStore = (kind: string) => STORE_KINDS.has(kind) || STORE_AREAS.some((a) => kind.startsWith(a));
export const changesGit = (kind: string) => GIT_KINDS.has(kind) || kind.startsWith('worktree.');

/** What a batch of new entries asks to be read again. */
export interface JournalNews {
  store: boolean;
  /** Sessions whose worktree is read again. */
  git: string[];
  snapshots: boolean;
  /** A refused cycle came (the picture shows the last 20). */
  cycles: boolean;
}

export class FleetJournal {
  cycles: UiJournalEntry[] = [];
  private cursor = 0;

  constructor(private readonly lanes: Lanes) {}

  /** Starts after the newest entry now, with the last refused cycles. */
  async start(): Promise<void> {
    this.cursor = (await this.lanes.journal.list({ order: 'desc', limit: 1 }))[0]?.seq ?? 0;
    const cycles = await this.lanes.journal.list({ kinds: ['claim.cycle'], order: 'desc', limit: 20 });
    this.cycles = cycles.map(toUiJournal);
  }

  /** The last number seen (the report cache keys on it). */
  get seen(): number {
    return this.cursor;
  }

  /** Reads the new entries, hands each batch to `emit`, and says what they ask to be read again. */
  async read(emit: (entries: UiJournalEntry[]) => void): Promise<JournalNews> {
    const news: JournalNews = { store: false, git: [], snapshots: false, cycles: false };
    for (;;) {
      const read: JournalEntry[] = await this.lanes.journal.list({ afterSeq: this.cursor, limit: 1000 });
      if (read.length === 0) return news;
      this.cursor = read[read.length - 1]!.seq;
      const entries = read.map(toUiJournal);
      const cycles = entries.filter((e) => e.kind === 'claim.cycle');
      if (cycles.length > 0) {
        this.cycles = [...cycles.reverse(), ...this.cycles].slice(0, 20);
        news.cycles = true;
      }
      emit(entries);
      for (const e of read) {
        if (changesStore(e.kind)) news.store = true;
        if (changesGit(e.kind)) {
          if (e.session) news.git.push(e.session);
          news.snapshots = true;
        }
      }
      if (read.length < 1000) return news;
    }
  }
}
