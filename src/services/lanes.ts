import { openStore } from '../store/open.js';
import { resolveStore } from './config.js';
import type { Store } from '../store/types.js';
import { ClaimService } from './claims.js';
import { LanesContext } from './context.js';
import type { Notice } from './context.js';
import { HandoffService } from './handoffs.js';
import { SessionService } from './sessions.js';
import { StateService } from './state.js';
import { SnapshotService } from './snapshots.js';
import type { SweepReport } from './sweep.js';
import type { PathCommitResult } from '../git/commit-paths.js';
import type { LandMode, LandResult } from './land.js';
import type { Grant } from '../store/types.js';
import type { ConflictReport } from './conflicts.js';
import type { CreatedWorktree } from './worktrees.js';

export interface LanesOptions {
  /** SQLite file (or, later, a postgres:// URL). Default: $LANES_STORE, else $LANES_HOME/lanes.db. */
  store?: string;
  /** The session this process acts as. Default: $LANES_SESSION. */
  session?: string | null;
  cwd?: string;
  env?: Record<string, string | undefined>;
  /** Lease of sessions on other hosts (default 60 s, or $LANES_LEASE_MS). */
  leaseMs?: number;
  /** Lease of a gate held from another host, renewed while held (default 15 s, or $LANES_GATE_LEASE_MS). */
  gateLeaseMs?: number;
  busyTimeoutMs?: number;
  /** Where wait notices go (default: stderr). false: nowhere. */
  notice?: Notice | false;
}

export interface Lanes {
  readonly store: Store;
  /** Shared context for services built on top (guard, doctor). */
  readonly context: LanesContext;
  readonly sessionId: string | null;
  readonly sessions: SessionService;
  readonly claims: ClaimService;
  readonly state: StateService;
  readonly handoffs: HandoffService;
  readonly snapshots: SnapshotService;
  /** `lanes commit`: exactly these paths (relative to cwd) onto this worktree's branch. */
  commit(paths: string[], message: string): Promise<PathCommitResult>;
  /** `lanes sweep`: snapshot every dirty worktree to private refs; flag collisions and stale copies. */
  sweep(options?: { dryRun?: boolean; onProgress?: (done: number, total: number, worktree: string) => void }): Promise<SweepReport>;
  /** `lanes conflicts`: predicted overlaps between live sessions and with the target branch. */
  conflicts(options?: { against?: string }): Promise<ConflictReport>;
  /** `lanes land`: publish this session's branch, fenced by its ticket claim. */
  land(options?: { into?: string; mode?: LandMode }): Promise<LandResult>;
  /** `lanes adopt`: take over a dead or ended session's claims, ticket and worktree. */
  adopt(sessionId: string): Promise<{ worktree: string | null; grants: Grant[] }>;
  /** A new worktree + branch lanes/<slug> for a session (lanes start --worktree). */
  createWorktree(options: { ticket?: string | null; label?: string | null; base?: string | null }): Promise<CreatedWorktree>;
  /** Refreshes this session's lease (no-op without a session). */
  heartbeat(): Promise<boolean>;
  /** See ClaimService.assertFenced. */
  assertFenced(resource: string, token: number): Promise<void>;
  close(): Promise<void>;
}

function envNumber(env: Record<string, string | undefined>, key: string): number | undefined {
  const v = env[key];
  return v && /^\d+$/.test(v) ? Number(v) : undefined;
}

export async function openLanes(options: LanesOptions = {}): Promise<Lanes> {
  const env = options.env ?? process.env;
  const location = await resolveStore(options.store, env);
  const store = await openStore(location, options.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: options.busyTimeoutMs });
  const notice: Notice = options.notice === false ? () => undefined : (options.notice ?? ((m) => process.stderr.write(m + '\n')));
  const ctx = new LanesContext(
    store,
    options.cwd ?? process.cwd(),
    env,
    options.session === undefined ? (env['LANES_SESSION'] || null) : options.session,
    options.leaseMs ?? envNumber(env, 'LANES_LEASE_MS') ?? 60_000,
    options.gateLeaseMs ?? envNumber(env, 'LANES_GATE_LEASE_MS') ?? 15_000,
    notice,
  );
  const sessions = new SessionService(ctx);
  const claims = new ClaimService(ctx);
  const snapshots = new SnapshotService(ctx);
  return {
    store,
    context: ctx,
    sessionId: ctx.sessionId,
    sessions,
    claims,
    state: new StateService(ctx),
    handoffs: new HandoffService(ctx),
    snapshots,
    // Loaded on use: `lanes hook` and `lanes exec` open the store in every tool call and need none of these.
    commit: async (paths, message) => (await import('./commit.js')).commitNamedPaths(ctx, claims, paths, message),
    sweep: async (options) => (await import('./sweep.js')).sweep(ctx, snapshots, options),
    createWorktree: async (options) => (await import('./worktrees.js')).createSessionWorktree(ctx, options),
    conflicts: async (options) => (await import('./conflicts.js')).findConflicts(ctx, options),
    land: async (options) => (await import('./land.js')).land(ctx, claims, options),
    adopt: async (sessionId) => (await import('./land.js')).adopt(ctx, claims, sessionId),
    heartbeat: () => sessions.heartbeat(),
    assertFenced: (resource, token) => claims.assertFenced(resource, token),
    close: () => store.close(),
  };
}
