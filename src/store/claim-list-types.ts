import type { HeldClaim } from '../core/claim-plan.js';

// The reads that list claims (lanes ls, lanes claims, the dashboard), part of ClaimStore (types.ts).

/** A claim's key: claims are listed, and paged, in its order (scope, kind, name; byte order). */
export type ClaimKey = Pick<HeldClaim, 'scope' | 'kind' | 'name'>;

export interface ClaimListStore {
  /**
   * Claims, optionally only those of some scopes or of one session, in key order. A page of them:
   * `after` the key of the last claim of the previous page, at most `limit` (with one session,
   * read through its index: each page costs its own claims, not the ones before it).
   */
  listClaims(filter?: {
    scopes?: string[];
    sessionId?: string;
    sessionIds?: string[];
    after?: ClaimKey;
    limit?: number;
  }): Promise<HeldClaim[]>;
  /**
   * The first `perSession` claims of each of these sessions in one read, in the order a person
   * reads them (core/resource.ts claimRank: ticket, path, branch, other kinds, port), then key order.
   */
  firstClaims(sessionIds: string[], perSession: number): Promise<HeldClaim[]>;
  /** How many claims each of these sessions holds (counted in the index by session); those holding none are absent. */
  claimCounts(sessionIds: string[]): Promise<Map<string, number>>;
  /** The sessions holding at least one claim (through the index by session; no claim is read). */
  claimHolders(): Promise<string[]>;
}
