import type { OwnerIdentity, ProcStat } from './process-identity.js';

export type SessionState = 'live' | 'dead' | 'ended';

export interface Verdict {
  live: boolean;
  /** Why it is dead ('' when live), for messages: "pid 123 was reused", "host rebooted". */
  why: string;
}

export interface LivenessContext {
  host: string;
  bootId: string;
  /** Reads a local process' state; injected so the rule stays pure and testable. */
  probe: (pid: number) => ProcStat | null;
  /** The store's clock, for leases of other hosts. */
  nowMs: number;
  leaseMs: number;
}

/**
 * Liveness is proven, not guessed. On this host the owner is live only if the boot id, pid and
 * process start time all match and the process is not a zombie. Another host's owner is live
 * while its lease (last heartbeat + leaseMs, both on the store's clock) has not expired.
 */
export function judgeOwner(owner: OwnerIdentity, lastSeenMs: number, ctx: LivenessContext): Verdict {
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
  const stat = ctx.probe(owner.pid);
  if (!stat) return { live: false, why: `pid ${owner.pid} has exited` };
  if (stat.state === 'Z' || stat.state === 'X') return { live: false, why: `pid ${owner.pid} has exited (zombie)` };
  if (owner.startTime !== stat.startTime)
    return { live: false, why: `pid ${owner.pid} now belongs to another process (pid reused)` };
  return { live: true, why: '' };
}
