import type { ClaimService } from '../claims/claims.js';
import type { LanesContext } from '../context.js';
import type { SeatRecord } from '../../store/seat-types.js';
import type { AgentName } from '../../core/hook-event.js';
import type { BilledSource } from './billed-sources.js';
import type { Exhausted, QuotaSignal } from './exhaust.js';
import type { SeatLease, SeatService, SeatView } from './seats.js';
import { utcMinute } from '../../core/duration.js';

/** `lanes.seats`: the logins agents run on (services/seats/seats.ts), loaded on first use. */
export interface SeatsApi {
  /** `lanes seat add`: a login by what selects it (`KEY=VALUE`s), per host; secrets only by reference. */
  add(options: {
    name: string;
    agent: string;
    env: string[];
    concurrency?: string;
    pool?: string;
    payPerUse?: boolean;
  }): Promise<SeatRecord>;
  /** Refused while a live session leases it, unless `force`. */
  remove(name: string, options?: { force?: boolean }): Promise<SeatView>;
  list(options?: { allHosts?: boolean }): Promise<SeatView[]>;
  /**
   * Of this host's seats that are not pay-per-use, those whose login's own files (or, used here, the
   * working directory's project files) would bring a billed-per-call key back: never leased so.
   */
  billed(): Promise<{ host: string; seat: string; sources: BilledSource[] }[]>;
  /** Usable again before the reset its agent named. False when it was not exhausted. */
  reset(name: string): Promise<boolean>;
  /**
   * Leases `which` (a seat's name, or `auto`: of `pool` when given) to the session, giving back one it
   * leased before.
   */
  lease(
    session: string,
    which: string,
    options?: {
      pool?: string;
      /** The agent's command line: settings it names (Claude Code's `--settings`) are checked for a billed key too. */
      command?: readonly string[];
      /** `auto` may pick a pay-per-use seat of `pool` (a session moving off one, its pool allowing it). */
      billedToo?: boolean;
    },
  ): Promise<SeatLease>;
  /**
   * What a session's wrapper did when its seat ran out ([seats] on_exhausted), journaled: moved to
   * another seat, waits for one (shown on the session), or stopped.
   */
  failover(
    session: string,
    step: { action: 'moved' | 'wait' | 'stop'; from: string; to?: string; why: string },
  ): Promise<void>;
  release(session: string): Promise<SeatLease | null>;
  leaseOf(session: string): Promise<SeatLease | null>;
  /** What a process of the session runs with on its seat: the seat's variables set, billed-per-call ones left out. */
  environment(
    session: string,
    inherited: Record<string, string | undefined>,
  ): Promise<{ lease: SeatLease | null; set: Record<string, string>; strip: string[] }>;
  /**
   * An agent said its login ran out: its seat is exhausted until the reset (journaled). `notify`:
   * the `exhausted` event of [notify] is sent when the seat was not already out until then (the
   * hooks' policy sends its own; lanes' wrapper, reading the agent's record at exit, asks here).
   */
  exhausted(signal: QuotaSignal, options?: { notify?: boolean }): Promise<Exhausted | null>;
}

export function seatsFacade(ctx: LanesContext, claims: ClaimService): SeatsApi {
  let service: SeatService | undefined;
  const seats = async () => (service ??= new (await import('./seats.js')).SeatService(ctx, claims));
  return {
    add: async (o) => (await seats()).add(o),
    remove: async (name, o) => (await seats()).remove(name, o),
    list: async (o) => (await seats()).list(o),
    billed: async () => {
      const { billedSources } = await import('./billed-sources.js');
      return (await ctx.store.listSeats(ctx.host))
        .filter((s) => !s.payPerUse)
        .map((s) => ({ host: s.host, seat: s.name, sources: billedSources(s.agent as AgentName, s.env, ctx.cwd) }))
        .filter((b) => b.sources.length > 0);
    },
    reset: async (name) => (await seats()).reset(name),
    lease: async (session, which, o = {}) => {
      const s = await ctx.store.getSession(session);
      const cwd = s?.cwd ?? s?.worktree ?? null;
      return (await seats()).lease(session, which, s?.agent ?? null, o.pool, cwd, {
        command: o.command ?? [],
        billedToo: o.billedToo === true,
      });
    },
    failover: async (session, step) => {
      const s = await ctx.store.getSession(session);
      await ctx.journal.record({
        kind: 'seat.failover',
        subject: step.from,
        session,
        repo: s?.repo ?? null,
        ticket: s?.ticket ?? null,
        details: { ...step },
      });
      // Waiting for a seat is waiting: ls, the page and the report show why.
      if (step.action === 'wait') await ctx.store.setAttention(session, 'waiting', step.why).catch(() => undefined);
      if (step.action === 'moved') await ctx.store.setAttention(session, null, null).catch(() => undefined);
    },
    release: async (session) => (await seats()).release(session),
    leaseOf: async (session) => (await seats()).leaseOf(session),
    environment: async (session, inherited) => {
      // `lanes exec` asks in every call: a session without a seat costs one read, no module.
      const held = await ctx.store.listClaims({ sessionId: session });
      if (!held.some((c) => c.kind === 'seat')) return { lease: null, set: {}, strip: [] };
      const s = await seats();
      const lease = await s.leaseOf(session);
      return lease ? { lease, ...s.environmentOf(lease, inherited) } : { lease: null, set: {}, strip: [] };
    },
    exhausted: async (signal, o = {}) => {
      const r = await (await import('./exhaust.js')).seatExhausted(ctx, await seats(), signal);
      const session =
        o.notify && r?.changed && r.session ? await ctx.store.getSession(r.session).catch(() => null) : null;
      if (r && session) {
        const until = utcMinute(r.until);
        const said = `seat ${r.seat.name} ran out (${signal.why}); lanes uses it again after ${until}`;
        const { notifyLater } = await import('../notify/dispatch.js');
        const { notifyEventOf } = await import('../notify/events.js');
        await notifyLater(ctx, [notifyEventOf('exhausted', session, said, await ctx.store.now())]).catch(
          () => undefined,
        );
      }
      return r;
    },
  };
}
