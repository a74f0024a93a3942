// openLanes(): the one object through which every behaviour is reached (lanes-api.ts); the services are wired here only.
import { LanesError } from '../core/errors.js';
import { formatResource } from '../core/resource.js';
import { openStore } from '../store/open.js';
import { ClaimService } from './claims/claims.js';
import { envNumber, loadConfig, publicConfig, resolveStore } from './config.js';
import { LanesContext, unknownSession } from './context.js';
import type { Notice } from './context.js';
import { HandoffService } from './handoffs/handoffs.js';
import type { BoundHooks } from './hooks/bind.js';
import type { EnvironmentOf } from './sessions/setup.js';
import type { Lanes } from './lanes-api.js';
import { actingSession, adoptActing } from './sessions/acting.js';
import { journaledRefusal } from './journal/refusal.js';
import { ending } from './sessions/ending.js';
import { SessionService } from './sessions/sessions.js';
import { listings } from './sessions/listing.js';
import { SnapshotService } from './snapshots/snapshots.js';
import { StateService } from './state/state.js';
import { freeKept } from './state/gate-keep.js';
import { worktreesFacade } from './worktrees/facade.js';
import { seatsFacade } from './seats/facade.js';
import { trustFacade } from './trust/facade.js';
import { queueFacade } from './land/queue-facade.js';
import { pullRequestsFacade } from './land/pr-facade.js';
import { tellings } from './tell/facade.js';

export interface LanesOptions {
  /** SQLite file or postgres:// URL. Default: $LANES_STORE, else [store] url of the user config, else $LANES_HOME/lanes.db. */
  store?: string;
  /**
   * The session this object acts as (null: none). Default: the acting session (sessions/acting.ts):
   * $LANES_SESSION when live, else the live session owned by the nearest ancestor of this process.
   */
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

const closing = async (store: { close(): Promise<void> }, e: unknown): Promise<never> => {
  await store.close().catch(() => undefined);
  throw e;
};

export async function openLanes(options: LanesOptions = {}): Promise<Lanes> {
  const env = options.env ?? process.env;
  const location = await resolveStore(options.store, env);
  const store = await openStore(
    location,
    options.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: options.busyTimeoutMs },
  );
  const notice: Notice =
    options.notice === false ? () => undefined : (options.notice ?? ((m) => process.stderr.write(m + '\n')));
  const ctx = new LanesContext(
    store,
    location,
    options.cwd ?? process.cwd(),
    env,
    options.session === undefined ? null : options.session,
    options.leaseMs ?? envNumber(env, 'LANES_LEASE_MS') ?? 60_000,
    options.gateLeaseMs ?? envNumber(env, 'LANES_GATE_LEASE_MS') ?? 15_000,
    notice,
  );
  // A session named that the store does not have: the store is closed before the error goes up.
  const sessionHow = await adoptActing(ctx, options.session).catch((e: unknown) => closing(store, e));
  const sessions = new SessionService(ctx);
  const claims = new ClaimService(ctx);
  const state = new StateService(ctx);
  const handoffs = new HandoffService(ctx);
  const snapshots = new SnapshotService(ctx);
  const seats = seatsFacade(ctx, claims);
  // Loaded on use: `lanes hook`/`exec` open the library in every tool call and need little of it.
  // [session] setup/teardown run with what the session's own commands get (`lanes exec`'s environment).
  const environmentOf: EnvironmentOf = async (s, leaseNew) =>
    (await import('./sessions/setup.js')).environmentFor(ctx, { claims, state, handoffs, seats }, env)(s, leaseNew);
  const end = ending(ctx, store, { sessions, snapshots, environmentOf }, () => who());
  const guard = async () => new (await import('./commits/guard.js')).GuardService(ctx, claims);
  // Reading the state of a session the store never knew is a mistake to say, not an empty state.
  const known = async (id: string): Promise<void> => {
    if (!(await sessions.find(id))) throw unknownSession(id, store.info.location);
  };
  // Who a journal entry of this object's decisions names: its session, repository and ticket.
  const who = async () => {
    const repo = await ctx.repo().catch(() => null);
    const ticket = ctx.sessionId ? ((await store.getSession(ctx.sessionId).catch(() => null))?.ticket ?? null) : null;
    return { session: ctx.sessionId, repo: repo ? ctx.repoId(repo) : null, ticket };
  };
  const records = () => import('./journal/journal-records.js');
  const refusal = journaledRefusal(ctx, who);
  let lastBeat = -Infinity;
  const heartbeat = async (freshForMs?: number, activity?: boolean): Promise<boolean> => {
    const ok = await sessions.heartbeat(freshForMs, activity);
    lastBeat = Date.now();
    return ok;
  };
  let bound: BoundHooks | undefined;
  const hooks = async (): Promise<BoundHooks> =>
    (bound ??= (await import('./hooks/bind.js')).bindHooks(ctx, { sessions, state, snapshots, end, seats }));

  const api: Lanes = {
    sessionId: ctx.sessionId,
    sessionHow,
    storeInfo: store.info,
    now: () => store.now(),
    changes: (o) => store.changeMark(o),
    repository: () => ctx.repo(),
    config: async (worktree) => publicConfig(await loadConfig(ctx, worktree)),
    sessions: {
      start: async (o) =>
        (await import('./sessions/start-session.js')).startAndSetUp(ctx, sessions, claims, o, {
          passSetup: (from, to) => store.passSetup(from, to),
          environmentOf,
          end,
        }),
      predecessor: async (ticket) => (await import('./sessions/predecessor.js')).predecessorOf(ctx, snapshots, ticket),
      resumeWorktree: async (p) => (await import('./sessions/predecessor.js')).resumeWorktree(ctx, p),
      left: async (name) =>
        (await import('./sessions/predecessor.js')).leftBy(ctx, snapshots, await sessions.get(name)),
      diff: async (name, o) => (await import('./worktrees/session-diff.js')).diffOf(ctx, snapshots, name, o),
      acting: (o = {}) => actingSession(ctx, o.env === undefined ? env['LANES_SESSION'] || null : o.env, o.from),
      attach: (o) => sessions.attach(o),
      setTerminal: (id, terminal) => store.updateSession(id, { terminal }),
      end,
      current: () => sessions.current(),
      get: (id) => sessions.get(id),
      resolve: (id) => sessions.resolve(id),
      ...listings(ctx),
      ...tellings(ctx),
      glance: async (id) => (await import('./sessions/glance.js')).glance(ctx, id),
      progress: async (ids) => (await import('./worktrees/progress.js')).sessionProgress(ctx, ids),
      watch: async () => (await import('./sessions/watch.js')).watchHost(ctx),
      teardownsDue: () => store.teardownsDue(),
      teardown: async (id) =>
        (await import('./sessions/setup.js')).tearDownAgain(ctx, await sessions.get(id), environmentOf),
    },
    claims: {
      claim: (resources, o) => claims.claim(resources, o),
      release: (resources, o) => claims.release(resources, o),
      list: (o) => claims.list(o),
      check: (resource, o) => claims.check(resource, o),
      assertFenced: (resource, token) =>
        refusal(claims.assertFenced(resource, token), ['E_FENCED'], () => ({
          kind: 'fence.refuse',
          subject: typeof resource === 'string' ? resource : formatResource(resource),
        })),
      waits: async () => (await import('./claims/waits-view.js')).waitsView(ctx, claims),
      releaseDead: (id) => claims.releaseDead(id),
    },
    journal: {
      list: (q) => ctx.journal.list(q),
      follow: (q, on, o) => ctx.journal.follow(q, on, o),
      prune: async (o = {}) =>
        ctx.journal.prune(o.olderThanMs ?? (await loadConfig(ctx)).journal.retentionMs, o.background ? 4 : Infinity),
    },
    state: {
      get: async (id) => (await known(id), state.get(id)),
      getKey: async (id, key) => (await known(id), state.getKey(id, key)),
      mutate: (id, fn, o) => state.mutate(id, fn, o),
      setKey: (id, key, value, o) => state.setKey(id, key, value, o),
      clearKey: (id, key, o) => state.clearKey(id, key, o),
      clear: (id, o) =>
        refusal(state.clear(id, o), ['E_CLEAR_IN_MUTATE'], () => ({ kind: 'state.refuse', subject: id, session: id })),
      clearIf: (id, predicate, o) => state.clearIf(id, predicate, o),
    },
    handoffs: {
      put: (name, payload, o) => handoffs.put(name, payload, o),
      get: (name, o) =>
        refusal(handoffs.get(name, o), ['E_WRONG_OWNER', 'E_INTEGRITY'], () => ({
          kind: 'handoff.refuse',
          subject: name,
          session: o?.session ?? ctx.sessionId,
        })),
      path: (name, o) => handoffs.path(name, o),
      putAt: (dir, name, payload, id) => handoffs.putAt(dir, name, payload, id),
      getAt: (dir, name, id) => handoffs.getAt(dir, name, id),
    },
    snapshots: {
      snapshot: async (o = {}) => {
        const s = await sessions.resolve(o.session);
        if (!s.worktree)
          throw new LanesError(
            'E_USAGE',
            `session ${s.id} has no worktree (it was not started inside a git repository)`,
          );
        const r = await snapshots.snapshot(s.worktree, s.id, o.why ?? 'lanes snapshot');
        const e = (await records()).snapshotEntry({ ...(await who()), ticket: s.ticket }, r, o.why ?? 'lanes snapshot');
        if (e) await ctx.journal.record(e);
        return r;
      },
      list: (id) => snapshots.list(id),
      restore: async (name, into) => {
        const r = await snapshots.restore(name, into);
        await ctx.journal.record((await records()).restoreEntry(await who(), r.snapshot, r.path, r.branch));
        return r;
      },
    },
    ports: {
      lease: async (name, o = {}) => {
        const session = await ctx.requireSession(o.session);
        const { leasePort } = await import('./runtime/ports.js');
        return leasePort(ctx, claims, state, session, name, await loadConfig(ctx, session.worktree));
      },
      list: async () => (await import('./runtime/ports.js')).listPorts(claims, state),
    },
    guard: {
      install: async (o) => (await guard()).install(o),
      uninstall: async () => (await guard()).uninstall(),
      status: async () => (await guard()).status(),
      checkCommit: async () => (await guard()).checkCommit(),
    },
    createWorktree: async (o) => (await import('./worktrees/worktrees.js')).createSessionWorktree(ctx, o),
    worktrees: worktreesFacade(ctx, { snapshots, sessions, claims, state, end }),
    seats,
    trust: trustFacade(ctx),
    commit: async (paths, message) => {
      // A commit refused for another session's claim is a decision the morning's reader must see;
      // the commit journals its own intent and outcome (commits/commit-intent.ts).
      return refusal(
        (async () => (await import('./commits/commit.js')).commitNamedPaths(ctx, claims, paths, message))(),
        ['E_CLAIM_HELD'],
        () => ({ kind: 'commit.refuse', subject: paths.join(' ').slice(0, 500) }),
      );
    },
    sweep: async (o) => {
      const r = await (await import('./snapshots/sweep.js')).sweep(ctx, snapshots, o);
      await ctx.journal.record((await records()).sweepEntries(await who(), r));
      return r;
    },
    conflicts: async (o) => {
      const r = await (await import('./conflicts/conflicts.js')).findConflicts(ctx, o);
      const e = (await records()).conflictsEntry(await who(), r);
      if (e) await ctx.journal.recordChange(e);
      return r;
    },
    land: async (o) => {
      // land journals its own intent and outcome (land/landing-intent.ts); refusals are recorded here.
      return refusal(
        (async () => (await import('./land/land.js')).land(ctx, claims, o))(),
        ['E_FENCED', 'E_FLAGGED', 'E_REPO_STATE', 'E_CLAIM_HELD'],
        (e) => ({ kind: e.code === 'E_FENCED' ? 'fence.refuse' : 'land.refuse', subject: 'land' }),
      );
    },
    queue: queueFacade(ctx, () => api),
    pullRequests: pullRequestsFacade(ctx),
    landFinished: async (name, o) => (await import('./land/land-finished.js')).landFinished(ctx, api, name, o),
    adopt: async (name, o = {}) => {
      const id = (await sessions.get(name)).id;
      const r = await (await import('./land/land.js')).adopt(ctx, claims, id, o.session);
      const tokens = r.grants.map((g) => g.token);
      const by = { ...(await who()), ...(o.session ? { session: o.session } : {}) };
      await ctx.journal.record((await records()).adoptEntry(by, id, r.worktree, tokens));
      return r;
    },
    environment: async (o = {}) => {
      const session = await sessions.resolve(o.session);
      const { sessionEnvironment } = await import('./runtime/runtime-env.js');
      const environment = await sessionEnvironment(
        ctx,
        { claims, state, handoffs, seats },
        session,
        await loadConfig(ctx, session.worktree),
        o.inherited ?? {},
      );
      return { ...environment, session };
    },
    doctor: async (o = {}) => {
      const installGuard = o.lanesCommand
        ? async () => (await guard()).install({ lanesCommand: o.lanesCommand! })
        : undefined;
      const teardown = async (id: string) =>
        (await import('./sessions/setup.js')).tearDownAgain(ctx, await sessions.get(id), environmentOf);
      const r = await (
        await import('./doctor/doctor.js')
      ).doctor(ctx, { state, end, snapshots, installGuard, teardown }, o);
      await ctx.journal.record((await records()).doctorEntries(await who(), r));
      return r;
    },
    gc: async (o = {}) => (await import('./doctor/gc.js')).gc(ctx, { state, end }, o),
    hook: async (event) => (await hooks()).run(event),
    heartbeat: (o = {}) => heartbeat(o.unlessFresh ? ctx.leaseMs / 12 : undefined),
    close: async (o = {}) => {
      // Every use of the library by a session refreshes its lease; a failed refresh (full disk,
      // store unreachable) never fails a finished command. A lease refreshed within a twelfth of
      // its length (5 s of 60) is not written again (a hook runs in every tool call; a write is a
      // WAL frame and fsyncs): other hosts still see it live with over 90% of the lease to spare.
      if (o.heartbeat !== false && ctx.sessionId && Date.now() - lastBeat > 1000)
        await heartbeat(ctx.leaseMs / 12, bound?.active()).catch(() => false);
      await freeKept(ctx);
      await store.close();
    },
  };
  return api;
}
