// What `lanes store copy` moves between stores (both backends, one contract).
import type { JournalEntry } from './journal-types.js';
import type { ClaimRecord, SessionRecord, StateRecord } from './types.js';

/** Everything a store holds, for `lanes store copy` (held gates are copied free: their holders do not move). */
export interface StoreDump {
  sessions: SessionRecord[];
  claims: ClaimRecord[];
  fences: { scope: string; kind: string; name: string; lastToken: number }[];
  state: StateRecord[];
  gates: { name: string; token: number }[];
  /** The decision journal, oldest first (numbers are the source's; the target numbers them anew). */
  journal?: Omit<JournalEntry, 'seq'>[];
}

export interface DumpStore {
  /** Everything, in one consistent read; the journal only when asked (it can be long). */
  dump(options?: { journal?: boolean }): Promise<StoreDump>;
  /**
   * Loads a dump in one transaction. A store holding sessions, claims or state is refused
   * (E_STORE_NOT_EMPTY) unless replace, which drops them first; fencing counters never go down
   * (the higher of the two is kept), so a token granted by either store is never granted again.
   * Journal entries are appended after the store's own, in order, with their times and hosts
   * (the store's own entries stay: its numbers are never reused).
   */
  load(dump: StoreDump, options: { replace: boolean }): Promise<void>;
}
