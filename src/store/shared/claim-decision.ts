import { LanesError } from '../../core/errors.js';
import { planClaims } from '../../core/claim-plan.js';
import type { ClaimPlan } from '../../core/claim-plan.js';
import { resourcesConflict } from '../../core/resource.js';
import type { ResourceRef } from '../../core/resource.js';
import type { ClaimRecord, ClaimResult, Grant, OwnerJudge, SessionRecord } from '../types.js';

// The part of acquireClaims both backends share: who may claim, which claims to load, judging the
// holders of the claims they loaded in their transaction, and describing the grants. Each backend
// does its own reads and writes.

/** The claiming session, read in the claim's transaction; only a live session may claim. */
export function claimant(me: SessionRecord | null, sessionId: string, location: string): SessionRecord {
  if (!me)
    throw new LanesError('E_UNKNOWN_SESSION', `session ${sessionId} is not in the store ${location}`, {
      hint: 'start one with `lanes start`',
    });
  if (me.endedAt !== null)
    throw new LanesError('E_SESSION_ENDED', `session ${sessionId} has ended (${me.endReason ?? 'no reason'})`, {
      hint: 'start a new session with `lanes start`',
    });
  return me;
}

/**
 * One wanted resource per (scope, kind) among those wanted: each backend loads, per entry, the
 * claims that could conflict (all path claims of the scope, or the claims of that kind named like
 * any wanted resource).
 */
export function claimLookups(wanted: ResourceRef[]): ResourceRef[] {
  const seen = new Set<string>();
  return wanted.filter((w) => {
    const key = `${w.scope}\0${w.kind}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export type Decision = { ok: false; result: ClaimResult } | { ok: true; plan: ClaimPlan<ClaimRecord> };

/** A holder is live when its session is in the store, not ended, and the judge says so on the store's clock. */
export function decideClaims(
  sessionId: string,
  wanted: ResourceRef[],
  existing: ClaimRecord[],
  holder: (id: string) => SessionRecord | null,
  judge: OwnerJudge,
  now: number,
): Decision {
  // The holders the plan will ask about (other sessions' conflicting claims), judged in one batch.
  const asked = new Set(
    existing
      .filter((c) => c.sessionId !== sessionId && wanted.some((w) => resourcesConflict(w, c)))
      .map((c) => c.sessionId),
  );
  const judged = [...asked].flatMap((id) => {
    const s = holder(id);
    return s && s.endedAt === null ? [{ id, owner: s.owner, lastSeenMs: s.lastSeenAt }] : [];
  });
  const verdicts = new Map(judge(judged, now).map((v, i) => [judged[i]!.id, v]));
  const plan = planClaims(sessionId, wanted, existing, (id) => {
    const s = holder(id);
    if (!s) return { live: false, why: 'its session is no longer in the store' };
    if (s.endedAt !== null) return { live: false, why: `its session ended (${s.endReason ?? 'no reason'})` };
    return verdicts.get(id) ?? judge([{ owner: s.owner, lastSeenMs: s.lastSeenAt }], now)[0]!;
  });
  if (plan.blockers.length > 0)
    return {
      ok: false,
      result: { ok: false, blockers: plan.blockers.map((b) => ({ ...b, holder: holder(b.held.sessionId) })) },
    };
  return { ok: true, plan };
}

/** The grant of `w` with `token`, naming the claim it took over, if any. */
export function grantOf(
  w: ResourceRef,
  token: number,
  plan: ClaimPlan<ClaimRecord>,
  holder: (id: string) => SessionRecord | null,
): Grant {
  const t = plan.takeovers.find((x) => resourcesConflict(w, x.held));
  return t
    ? { ref: w, token, takenOver: { claim: t.held, session: holder(t.held.sessionId), why: t.why } }
    : { ref: w, token };
}
