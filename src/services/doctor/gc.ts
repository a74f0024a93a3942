import { formatResource } from '../../core/resource.js';
import type { SessionRecord } from '../../store/types.js';
import type { LanesContext } from '../context.js';
import type { EndOptions, EndResult } from '../sessions/end-session.js';
import type { StateService } from '../state/state.js';

export interface GcOptions {
  /** Only report what would be reaped. */
  dryRun?: boolean;
  /** Reap at most this many (the oldest first in the background). */
  limit?: number;
  /**
   * The bounded reaping of ordinary commands: only sessions already recorded dead and not seen for
   * the grace period ($LANES_GC_AFTER_MS, default one hour; `off` disables it), at most `limit`
   * (default 2), never waiting for a session's gate.
   */
  background?: boolean;
}

export interface GcItem {
  session: string;
  /** Why it is dead. */
  why: string;
  worktree: string | null;
  /** Claims it held: released when reaped. */
  claims: string[];
  /** reaped; would-reap (dry run); changed (re-attached or heartbeating since it was judged: left open); failed. */
  outcome: 'reaped' | 'would-reap' | 'changed' | 'failed';
  /** The snapshot its unsaved work was saved in before it ended. */
  snapshot: string | null;
  /** What the end said: what its snapshot could not hold, say. */
  notes?: string[];
  error?: string;
}

export interface GcReport {
  dryRun: boolean;
  items: GcItem[];
  /** Dead sessions of this host left for another run (over the limit). */
  remaining: number;
}

const DEFAULT_GRACE_MS = 3_600_000;

/** The grace period of the background reaping, or null when it is off. */
export function backgroundGrace(env: Record<string, string | undefined>): number | null {
  const v = env['LANES_GC_AFTER_MS'];
  if (v === 'off') return null;
  return v && /^\d+$/.test(v) ? Number(v) : DEFAULT_GRACE_MS;
}

/** This host's dead sessions (judged now, and so recorded), or in the background those recorded long ago. */
async function deadOnes(ctx: LanesContext, options: GcOptions): Promise<{ s: SessionRecord; why: string }[]> {
  if (options.background) {
    const grace = backgroundGrace(ctx.env);
    if (grace === null) return [];
    const seenBefore = (await ctx.store.now()) - grace;
    // One more than needed, to know whether some remain.
    const found = await ctx.store.deadSessions({ seenBefore, limit: (options.limit ?? 2) + 1 });
    return found.filter((s) => s.owner.host === ctx.host).map((s) => ({ s, why: s.deadWhy ?? 'dead' }));
  }
  // A team store holds other hosts' sessions too: their worktrees are not here to snapshot, so
  // each host reaps its own (as lanes doctor does).
  const open = (await ctx.store.listSessions({ includeEnded: false })).filter((s) => s.owner.host === ctx.host);
  const states = await ctx.statesOf(open);
  return open
    .filter((s) => states.get(s.id)?.state === 'dead')
    .map((s) => ({ s, why: states.get(s.id)?.verdict.why ?? 'dead' }));
}

/**
 * Ends dead sessions the safe way, each through the one end path (its unsaved work snapshotted
 * first, then ended and its claims released in one transaction), under the session's state gate
 * (never while something mutates its state), and only if it is unchanged since it was judged
 * dead: a session re-attached meanwhile is left open. Never removes a worktree or a branch.
 */
export async function gc(
  ctx: LanesContext,
  deps: { state: StateService; end: (id: string, options: EndOptions) => Promise<EndResult> },
  options: GcOptions = {},
): Promise<GcReport> {
  const dead = await deadOnes(ctx, options);
  const limit = options.limit ?? (options.background ? 2 : Infinity);
  const chosen = dead.slice(0, limit);
  const items: GcItem[] = [];
  for (const { s, why } of chosen) {
    const claims = (await ctx.store.listClaims({ sessionId: s.id })).map(formatResource);
    const item: GcItem = { session: s.id, why, worktree: s.worktree, claims, outcome: 'would-reap', snapshot: null };
    items.push(item);
    if (options.dryRun) continue;
    try {
      let result: EndResult | undefined;
      await deps.state.mutate(
        s.id,
        async () => {
          result = await deps.end(s.id, {
            reason: `${options.background ? 'reaped in the background' : 'reaped by lanes gc'}: ${why}`,
            unchangedSince: { lastSeenAt: s.lastSeenAt, owner: s.owner },
          });
          return undefined;
        },
        options.background ? { timeoutMs: 0, noticeAfterMs: Infinity } : {},
      );
      item.outcome = result?.changed ? 'changed' : 'reaped';
      item.snapshot = result?.snapshot?.ref ?? null;
      if (result?.notes.length) item.notes = result.notes;
      if (result?.teardown && !result.teardown.ok)
        item.notes = [
          ...(item.notes ?? []),
          `[session] teardown failed: ${result.teardown.why ?? 'failed'}; run it again with \`lanes teardown ${s.id}\``,
        ];
      if (result?.changed) item.claims = [];
    } catch (e) {
      item.outcome = 'failed';
      item.error = (e as Error).message;
    }
  }
  return { dryRun: options.dryRun === true, items, remaining: Math.max(0, dead.length - chosen.length) };
}
