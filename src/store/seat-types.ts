import type { JournalInput } from './journal-types.js';

// Seats: the logins agents run on (one Claude Code config directory, one CODEX_HOME, …), kept in
// the store so that a team store shows every host's. A seat belongs to the host it was added on
// (what selects a login is a path of that machine); sessions lease it as claims of its slots
// (`seat:NAME/1` … `seat:NAME/concurrency`, host-scoped, with fencing tokens: services/seats/).

export interface SeatRecord {
  host: string;
  name: string;
  /** The agent whose login it is (`claude-code`, `codex`, …). */
  agent: string;
  /** Seats of one pool fail over to one another (default: the agent's name). */
  pool: string;
  /** What selects the login for the agent (a config directory): never a secret. */
  env: Record<string, string>;
  /** How many sessions may use it at once. */
  concurrency: number;
  /** Bills per call (an API key's login): added only when said so, never chosen by `auto`. */
  payPerUse: boolean;
  /** The store's clock: exhausted until then (the reset time its agent reported, or a default). */
  exhaustedUntil: number | null;
  exhaustedAt: number | null;
  exhaustedWhy: string | null;
  createdAt: number;
}

export type NewSeat = Pick<SeatRecord, 'host' | 'name' | 'agent' | 'pool' | 'env' | 'concurrency' | 'payPerUse'>;

export interface SeatStore {
  /** Adds a seat with its journal entry, in one transaction; null when this host has a seat of that name. */
  addSeat(seat: NewSeat, entry: JournalInput): Promise<SeatRecord | null>;
  /** Removes it with its journal entry; false when there was none. (Who leases it is the caller's to check.) */
  removeSeat(host: string, name: string, entry: JournalInput): Promise<boolean>;
  /** Seats of one host, or of every host (null), by host and name. */
  listSeats(host: string | null): Promise<SeatRecord[]>;
  /**
   * Marks a seat exhausted until `until` (store clock), with why, journaling `entry` with the change.
   * Only a later time is written: an agent reporting the same limit twice, or an earlier reset, is
   * no change (`changed` false). Null seat: unknown.
   */
  exhaustSeat(
    host: string,
    name: string,
    until: number,
    why: string,
    entry: JournalInput,
  ): Promise<{ changed: boolean; seat: SeatRecord | null }>;
  /** Clears a seat's exhaustion (`lanes seat reset`), journaled; false when it was not exhausted. */
  restoreSeat(host: string, name: string, entry: JournalInput): Promise<boolean>;
}
