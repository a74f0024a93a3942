// The change mark: what a watcher of the store compares instead of reading it again (both
// backends, same contract: test/store/contract-changes.ts).

/**
 * What a watcher of the store (the dashboard) compares instead of reading everything again: two
 * marks that are equal mean nothing it shows changed in between. Both parts are opaque.
 */
export interface ChangeMark {
  /** Differs from an earlier mark's once a journal entry was committed since (every claim change is one). */
  journal: string;
  /**
   * Differs from an earlier mark's once an open session or a wait changed since, whether a journal
   * entry says so or not (a heartbeat, attention, a death recorded, a wait ended); it may differ
   * for other writes too (SQLite: any commit). Null when not asked for.
   */
  fleet: string | null;
  /** The store's clock when the mark was read. */
  now: number;
}

export interface ChangeStore {
  /**
   * The current mark, without reading what it marks: the journal part costs a few index reads
   * however long the journal; the fleet part (`fleet: false` leaves it out) is free on SQLite (its
   * data_version) and one pass over the open sessions' row versions on PostgreSQL. Writers pay
   * nothing for it (no trigger, no NOTIFY, no counter row).
   */
  changeMark(options?: { fleet?: boolean }): Promise<ChangeMark>;
}
