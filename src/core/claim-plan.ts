import type { ResourceRef } from './resource.js';
import { resourcesConflict } from './resource.js';
import type { Verdict } from './liveness.js';

export interface HeldClaim extends ResourceRef {
  sessionId: string;
  token: number;
  acquiredAt: number;
}

export interface ClaimPlan<C extends HeldClaim> {
  /** Claims held by live sessions (other than the claimant) that block the request. */
  blockers: { wanted: ResourceRef; held: C }[];
  /** Claims of dead or ended sessions that the request takes over (they are deleted). */
  takeovers: { held: C; why: string }[];
  /** Wanted resources the claimant already holds exactly: granted again with a fresh token. */
  alreadyHeld: C[];
}

/**
 * The whole claim decision, backend-neutral: a backend loads the candidate claims inside its
 * transaction, asks this function, and executes the plan. All-or-nothing: one blocker fails the
 * whole request. A claim of a dead or ended holder never blocks.
 */
export function planClaims<C extends HeldClaim>(
  claimant: string,
  wanted: ResourceRef[],
  existing: C[],
  holderVerdict: (sessionId: string) => Verdict,
): ClaimPlan<C> {
  const plan: ClaimPlan<C> = { blockers: [], takeovers: [], alreadyHeld: [] };
  const takenOver = new Set<C>();
  for (const w of wanted) {
    for (const held of existing) {
      if (!resourcesConflict(w, held)) continue;
      if (held.sessionId === claimant) {
        if (held.name === w.name && !plan.alreadyHeld.includes(held)) plan.alreadyHeld.push(held);
        continue;
      }
      const verdict = holderVerdict(held.sessionId);
      if (verdict.live) plan.blockers.push({ wanted: w, held });
      else if (!takenOver.has(held)) {
        takenOver.add(held);
        plan.takeovers.push({ held, why: verdict.why });
      }
    }
  }
  return plan;
}
