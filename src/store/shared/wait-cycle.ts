import { formatResource } from '../../core/resource.js';
import type { ResourceRef } from '../../core/resource.js';
import type { CycleStep, JournalInput, WaitRecord } from '../journal-types.js';
import { repoOfScope } from './journal-entries.js';
import type { ClaimRecord, OwnerJudge } from '../types.js';

// Deadlock refusal: a wait is refused when it would close a cycle of waits. The graph: a waiting
// session points at the sessions holding what it waits for; a holder that itself waits (a live
// waiter) points on. Both backends load the live waits and the holders of every waited resource
// inside one serialized transaction and decide here, so two waits closing a cycle together cannot
// both be recorded.

export interface WaitRow {
  id: number;
  session_id: string;
  resources: string;
  host: string;
  boot_id: string;
  pid: number;
  start_time: string;
  since: number;
  seen_at: number;
}

export function toWait(row: WaitRow): WaitRecord {
  return {
    id: Number(row.id),
    sessionId: row.session_id,
    resources: JSON.parse(row.resources) as ResourceRef[],
    owner: { host: row.host, bootId: row.boot_id, pid: Number(row.pid), startTime: row.start_time },
    since: Number(row.since),
  };
}

export function resourcesText(refs: ResourceRef[]): string {
  return JSON.stringify(refs.map(({ scope, kind, name }) => ({ scope, kind, name })));
}

/**
 * The cycle through live waiters only. Waits are judged lazily: a cycle is looked for among all
 * recorded waits first (no process facts read, which would hold the store's write lock while
 * reading /proc), and only the waiters on a cycle found are judged; dead ones are dropped and the
 * search runs again. Cycles are rare, so the common case judges nobody.
 */
export function cycleAmongLive(
  sessionId: string,
  wanted: ResourceRef[],
  rows: WaitRow[],
  judge: OwnerJudge,
  now: number,
  holdersOf: (ref: ResourceRef) => ClaimRecord[],
): CycleStep[] | null {
  let waits = rows.map((r) => ({ wait: toWait(r), seenAt: Number(r.seen_at) }));
  const proven = new Set<number>();
  for (;;) {
    const cycle = findWaitCycle(
      sessionId,
      wanted,
      waits.map((w) => w.wait),
      holdersOf,
    );
    if (!cycle) return null;
    const onCycle = waits.filter((w) => !proven.has(w.wait.id) && cycle.some((s) => s.sessionId === w.wait.sessionId));
    if (onCycle.length === 0) return cycle;
    const verdicts = judge(
      onCycle.map((w) => ({ owner: w.wait.owner, lastSeenMs: w.seenAt })),
      now,
    );
    const dead = new Set(onCycle.filter((_, i) => !verdicts[i]?.live).map((w) => w.wait.id));
    for (const w of onCycle) proven.add(w.wait.id);
    if (dead.size === 0) return cycle;
    waits = waits.filter((w) => !dead.has(w.wait.id));
  }
}

/**
 * The cycle that `sessionId` waiting for `wanted` would close, or null. `holdersOf` gives the
 * claims conflicting with a resource (read in the deciding transaction).
 */
export function findWaitCycle(
  sessionId: string,
  wanted: ResourceRef[],
  waits: WaitRecord[],
  holdersOf: (ref: ResourceRef) => ClaimRecord[],
): CycleStep[] | null {
  const waitsOf = new Map<string, ResourceRef[]>();
  for (const w of waits)
    if (w.sessionId !== sessionId) waitsOf.set(w.sessionId, [...(waitsOf.get(w.sessionId) ?? []), ...w.resources]);
  const visited = new Set<string>();
  // Depth-first from the new waiter; the path of steps is the cycle when it comes back.
  const walk = (session: string, resources: ResourceRef[], path: CycleStep[]): CycleStep[] | null => {
    for (const resource of resources)
      for (const held of holdersOf(resource)) {
        if (held.sessionId === session) continue;
        const step = { sessionId: session, resource, heldBy: held.sessionId };
        if (held.sessionId === sessionId) return [...path, step];
        if (visited.has(held.sessionId)) continue;
        visited.add(held.sessionId);
        const next = waitsOf.get(held.sessionId);
        if (next) {
          const found = walk(held.sessionId, next, [...path, step]);
          if (found) return found;
        }
      }
    return null;
  };
  return walk(sessionId, wanted, []);
}

export function describeCycle(cycle: CycleStep[]): string {
  return cycle.map((s) => `${s.sessionId} waits for ${formatResource(s.resource)} held by ${s.heldBy}`).join(', ');
}

export function waitEntry(
  kind: 'claim.wait' | 'claim.cycle',
  sessionId: string,
  ticket: string | null,
  wanted: ResourceRef[],
  extra: Record<string, unknown>,
): JournalInput {
  return {
    kind,
    subject: wanted.map(formatResource).join(' '),
    session: sessionId,
    ticket,
    repo: repoOfScope(wanted[0]?.scope),
    details: extra,
  };
}

/** The resources a set of waits and a new request wait for, each once. */
export function waitedResources(wanted: ResourceRef[], waits: WaitRecord[]): ResourceRef[] {
  const seen = new Map<string, ResourceRef>();
  for (const r of [...wanted, ...waits.flatMap((w) => w.resources)])
    seen.set(`${r.scope}\u0000${r.kind}\u0000${r.name}`, r);
  return [...seen.values()];
}
