// The journal and the waits (issue 11, items 1 and 3) as the dashboard reads them from the library
// object: lanes.journal and lanes.claims.waits(). A library without them (an older build) shows
// no journal and no waits instead of failing.
import type { Lanes } from '../index.js';
import type { WaitLike } from './fleet-map.js';
import type { UiJournalEntry } from './view-types.js';

export interface JournalQueryLike {
  afterSeq?: number;
  since?: number;
  session?: string;
  ticket?: string;
  repo?: string;
  kinds?: string[];
  limit?: number;
  order?: 'asc' | 'desc';
}

export interface JournalLike {
  list(query?: JournalQueryLike): Promise<UiJournalEntry[]>;
  follow(
    query: JournalQueryLike,
    onEntries: (entries: UiJournalEntry[]) => void | Promise<void>,
    options: { signal: AbortSignal; pollMs?: number },
  ): Promise<void>;
}

export function journalOf(lanes: Lanes): JournalLike | null {
  return (lanes as unknown as { journal?: JournalLike }).journal ?? null;
}

export async function waitsOf(lanes: Lanes): Promise<WaitLike[]> {
  const claims = lanes.claims as unknown as { waits?: () => Promise<WaitLike[]> };
  return claims.waits ? claims.waits() : [];
}
