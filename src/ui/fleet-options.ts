import type { LanesOptions } from '../index.js';
import type { Redactor } from './redact.js';

// What the dashboard's picture of the fleet (fleet.ts) is told, and what it counts.

export interface FleetOptions {
  /** Options for each per-repository library object (the store, env). */
  base: LanesOptions;
  redactor: Redactor;
  /** How often the store's change mark is read (a new journal entry is seen within this). */
  pollMs?: number;
  /** How often the mark's fleet part is read (a change no journal entry records is seen within this). */
  fleetEveryMs?: number;
  /** The store is read again at most this often, however often it changes. */
  readEveryMs?: number;
  /** How often the live sessions are judged again (other hosts' leases; this host's pids looked up). */
  livenessEveryMs?: number;
  /** This host's owners' facts are read at least this often (5 s; 10 s where that is a `ps`); in between, their pids. */
  proofEveryMs?: number;
  /** Every worktree's git facts are read again at least this often (otherwise after activity). */
  gitEveryMs?: number;
  /** Conflict prediction at most this often after a change, and at least every `conflictsIdleMs`. */
  conflictsEveryMs?: number;
  conflictsIdleMs?: number;
  /** Ended sessions shown: those ended within this window, at most `endedCap`. */
  endedWindowMs?: number;
  endedCap?: number;
}

/** What the server did, counted (tests: nothing is read again while nothing changes). */
export type FleetStats = Record<'marks' | 'storeReads' | 'proofs' | 'gitReads' | 'publishes', number>;
