import type { ProcessFacts } from './platform/types.js';
import type { OwnerIdentity } from './process-identity.js';

export type SessionState = 'live' | 'dead' | 'ended';

export interface Verdict {
  live: boolean;
  /**
   * Why it is dead, for messages ("pid 123 was reused", "host rebooted"); '' when proven live, and
   * "unknown: …" when it is out of sight and only treated as live.
   */
  why: string;
  /** Not proven either way (facts unreadable, or out of sight): kept live, so nothing of it is taken over. */
  unknown?: true;
}

/** One owner to judge, with its last heartbeat on the store's clock (for owners on other hosts). */
export interface OwnerToJudge {
  owner: OwnerIdentity;
  lastSeenMs: number;
}

export interface LivenessContext {
  host: string;
  bootId: string;
  /**
   * Reads the facts of local processes, all pids of one decision at once (one `ps` on macOS);
   * injected so the rule stays pure and testable. Pids that do not exist are absent.
   */
  probe: (pids: readonly number[]) => Map<number, Pick<ProcessFacts, 'state' | 'startTime'>>;
  /** The store's clock, for leases of other hosts. */
  nowMs: number;
  leaseMs: number;
  /** Local processes started before this (platform start-time units) are out of this process' sight (a sandbox's pid namespace). */
  visibleSince?: string | null;
}

/**
 * Liveness is proven, not guessed. On this host the owner is live only if the boot id, pid and
 * process start time all match and the process is not a zombie. Another host's owner is live
 * while its lease (last heartbeat + leaseMs, both on the store's clock) has not expired. The
 * facts of every local owner are read in one probe.
 */
export function judgeOwners(owners: readonly OwnerToJudge[], ctx: LivenessContext): Verdict[] {
  const provable = (o: OwnerIdentity) => o.host === ctx.host && o.bootId === ctx.bootId;
  const pids = owners.filter((o) => provable(o.owner)).map((o) => o.owner.pid);
  // Facts that cannot be read (ps failing or denied, /proc unreadable) prove nothing: every local
  // owner is unknown, kept live, never dead.
  let facts: Map<number, Pick<ProcessFacts, 'state' | 'startTime'>> = new Map();
  let unreadable: string | null = null;
  try {
    if (pids.length > 0) facts = ctx.probe(pids);
  } catch (e) {
    unreadable = e instanceof Error ? e.message : String(e);
  }
  return owners.map(({ owner, lastSeenMs }): Verdict => {
    if (owner.host !== ctx.host) {
      const expires = lastSeenMs + ctx.leaseMs;
      return expires > ctx.nowMs
        ? { live: true, why: '' }
        : {
            live: false,
            why: `host ${owner.host} stopped heartbeating (lease expired ${Math.round((ctx.nowMs - expires) / 1000)}s ago)`,
          };
    }
    if (owner.bootId !== ctx.bootId) return { live: false, why: 'this host rebooted since the session started' };
    if (unreadable !== null)
      return { live: true, unknown: true, why: `unknown: lanes cannot read process facts here (${unreadable})` };
    const stat = facts.get(owner.pid);
    if (stat?.state === '?')
      return {
        live: true,
        unknown: true,
        why: `unknown: lanes cannot read the facts of pid ${owner.pid} here (denied)`,
      };
    // Fails closed: an owner this process cannot see is not proven dead, so nothing of it is taken
    // over. In a pid namespace its pid may name another process of the namespace: out of sight too.
    if ((!stat || stat.startTime !== owner.startTime) && outOfSight(owner, ctx.visibleSince))
      return {
        live: true,
        unknown: true,
        why: `unknown: pid ${owner.pid} is out of sight of this process (it runs in a sandbox's pid namespace); treated as live`,
      };
    if (!stat) return { live: false, why: `pid ${owner.pid} has exited` };
    if (stat.state === 'Z' || stat.state === 'X') return { live: false, why: `pid ${owner.pid} has exited (zombie)` };
    if (owner.startTime !== stat.startTime)
      return { live: false, why: `pid ${owner.pid} now belongs to another process (pid reused)` };
    return { live: true, why: '' };
  });
}

/** Whether an owner started before this process' pid namespace did (both start times as the platform reads them). */
function outOfSight(owner: OwnerIdentity, visibleSince: string | null | undefined): boolean {
  if (!visibleSince || !owner.startTime) return false;
  const since = Number(visibleSince);
  const started = Number(owner.startTime);
  return Number.isFinite(since) && Number.isFinite(started) && started < since;
}

/** One owner: judgeOwners of one. */
export function judgeOwner(owner: OwnerIdentity, lastSeenMs: number, ctx: LivenessContext): Verdict {
  return judgeOwners([{ owner, lastSeenMs }], ctx)[0]!;
}
