import { AGENT_LOGINS, ALL_PAY_PER_USE } from '../../core/agent-logins.js';
import { LanesError } from '../../core/errors.js';
import type { AgentName } from '../../core/hook-event.js';
import type { SeatRecord } from '../../store/seat-types.js';
import type { ClaimRecord, SessionRecord } from '../../store/types.js';
import type { ClaimService } from '../claims/claims.js';
import type { LanesContext } from '../context.js';
import { billedSources, describeSources } from './billed-sources.js';
import type { BilledSource } from './billed-sources.js';
import { HINT_BILLED, at, noSeat } from './no-seat.js';
import { resolveRef } from './seat-refs.js';
import { seatAgent, seatConcurrency, seatEnv, seatName } from './validate.js';

// Seats (store/seat-types.ts): the logins agents run on, leased to sessions as claims of their
// slots, `seat:NAME/1` … `seat:NAME/N` (host-scoped, fenced, released when the session ends and
// taken over from a dead one like any claim). A seat that ran out is exhausted until the reset its
// agent named (or [seats] default_reset), and no lease, `auto` or named, takes it before then.

export interface SeatHolder {
  session: string;
  slot: number;
  token: number;
  state: 'live' | 'dead' | 'ended';
}

export interface SeatView extends SeatRecord {
  state: 'free' | 'leased' | 'full' | 'exhausted';
  /** Exhausted until (store clock), when exhausted now. */
  until: number | null;
  leasedBy: SeatHolder[];
}

export interface SeatLease {
  seat: SeatRecord;
  slot: number;
  token: number;
  resource: string;
}

export const seatResource = (name: string, slot: number) => `seat:${name}/${slot}`;
const SLOT = /^(.+)\/(\d+)$/;

export class SeatService {
  constructor(
    private readonly ctx: LanesContext,
    private readonly claims: ClaimService,
  ) {}

  async add(o: {
    name: string;
    agent: string;
    env: string[];
    concurrency?: string;
    pool?: string;
    payPerUse?: boolean;
  }): Promise<SeatRecord> {
    const name = seatName(o.name);
    const agent = seatAgent(o.agent);
    const env = seatEnv(agent, o.env, o.payPerUse === true);
    const pool = o.pool === undefined ? agent : seatName(o.pool);
    const concurrency = seatConcurrency(o.concurrency);
    const sources = o.payPerUse === true ? [] : billedSources(agent, env, null);
    if (sources.length > 0)
      throw new LanesError('E_PAY_PER_USE', `this ${agent} login would bill per call: ${describeSources(sources)}`, {
        hint: HINT_BILLED,
        details: { sources },
      });
    const added = await this.ctx.store.addSeat(
      { host: this.ctx.host, name, agent, pool, env, concurrency, payPerUse: o.payPerUse === true },
      {
        kind: 'seat.add',
        subject: name,
        session: this.ctx.sessionId,
        details: { agent, pool, concurrency, payPerUse: o.payPerUse === true, selects: Object.keys(env) },
      },
    );
    if (!added)
      throw new LanesError('E_USAGE', `this host already has a seat named ${name}`, {
        hint: `choose another name, or remove it first: lanes seat rm ${name}`,
      });
    return added;
  }

  async remove(name: string, o: { force?: boolean } = {}): Promise<SeatView> {
    const seat = await this.get(name);
    const live = seat.leasedBy.filter((h) => h.state === 'live');
    if (live.length && !o.force)
      throw new LanesError('E_CLAIM_HELD', `the seat ${name} is in use by ${live.map((h) => h.session).join(', ')}`, {
        hint: `end those sessions first, or remove it anyway with --force (they keep running on its login)`,
      });
    await this.ctx.store.removeSeat(this.ctx.host, name, {
      kind: 'seat.remove',
      subject: name,
      session: this.ctx.sessionId,
      details: { leasedBy: live.map((h) => h.session), forced: live.length > 0 },
    });
    return seat;
  }

  /** This host's seats (or every host's), each with its state now and who leases it. */
  async list(o: { allHosts?: boolean } = {}): Promise<SeatView[]> {
    const [seats, now] = await Promise.all([
      this.ctx.store.listSeats(o.allHosts ? null : this.ctx.host),
      this.ctx.store.now(),
    ]);
    // A seat's leases are claims of its host's scope: only those are read, not every path claim.
    const scopes = [...new Set(seats.map((s) => `host:${s.host}`))];
    const leases = scopes.length ? await this.ctx.store.listClaims({ scopes }) : [];
    const byScope = new Map<string, ClaimRecord[]>();
    for (const c of leases) if (c.kind === 'seat') byScope.set(c.scope, [...(byScope.get(c.scope) ?? []), c]);
    const sessions = new Map<string, SessionRecord | null>();
    const out: SeatView[] = [];
    for (const s of seats) {
      const leasedBy: SeatHolder[] = [];
      for (const c of byScope.get(`host:${s.host}`) ?? []) {
        const m = SLOT.exec(c.name);
        if (!m || m[1] !== s.name) continue;
        if (!sessions.has(c.sessionId)) sessions.set(c.sessionId, await this.ctx.store.getSession(c.sessionId));
        const holder = sessions.get(c.sessionId) ?? null;
        const state = holder ? (await this.ctx.stateOf(holder)).state : 'ended';
        leasedBy.push({ session: c.sessionId, slot: Number(m[2]), token: c.token, state });
      }
      const exhausted = s.exhaustedUntil !== null && s.exhaustedUntil > now;
      const busy = leasedBy.filter((h) => h.state !== 'dead' && h.state !== 'ended').length;
      out.push({
        ...s,
        leasedBy: leasedBy.sort((a, b) => a.slot - b.slot),
        until: exhausted ? s.exhaustedUntil : null,
        state: exhausted ? 'exhausted' : busy === 0 ? 'free' : busy >= s.concurrency ? 'full' : 'leased',
      });
    }
    return out;
  }

  async get(name: string): Promise<SeatView> {
    const seat = (await this.list()).find((s) => s.name === name);
    if (!seat)
      throw new LanesError('E_NOT_FOUND', `this host has no seat named ${JSON.stringify(name)}`, {
        hint: 'lanes seat ls lists them; lanes seat add NAME --agent AGENT --env KEY=VALUE adds one',
      });
    return seat;
  }

  /** Usable again before its reset (the person knows the login has quota again). */
  async reset(name: string): Promise<boolean> {
    await this.get(name);
    return this.ctx.store.restoreSeat(this.ctx.host, name, {
      kind: 'seat.restore',
      subject: name,
      session: this.ctx.sessionId,
      details: { by: 'lanes seat reset' },
    });
  }

  /** The seat a session leases, if any. */
  async leaseOf(sessionId: string): Promise<SeatLease | null> {
    const held = (await this.ctx.store.listClaims({ sessionId })).find((c) => c.kind === 'seat');
    const m = held ? SLOT.exec(held.name) : null;
    if (!held || !m) return null;
    const host = held.scope.replace(/^host:/, '');
    const seat = (await this.ctx.store.listSeats(host)).find((s) => s.name === m[1]);
    return seat
      ? { seat, slot: Number(m[2]), token: held.token, resource: seatResource(seat.name, Number(m[2])) }
      : null;
  }

  /**
   * Leases a seat to the session: the one named (refused when exhausted or every slot is in use),
   * or with `auto` the least used seat of the session agent's pool that is neither exhausted nor
   * pay-per-use. A seat the session already leases is given back first (a move). `billedToo`: a
   * session moving off a pay-per-use seat (one the person named) may go to another pay-per-use seat
   * of the same pool, flat ones first: a session on a flat seat never does.
   */
  async lease(
    sessionId: string,
    which: string,
    agent: string | null,
    pool?: string,
    cwd: string | null = null,
    o: { command?: readonly string[]; billedToo?: boolean } = {},
  ): Promise<SeatLease> {
    const views = await this.list();
    const now = await this.ctx.store.now();
    // A login whose own files would put a billed key back (billed-sources.ts) is a pay-per-use one
    // in all but name: never leased unless it was added as one.
    const billed = new Map<string, BilledSource[]>();
    const billedOf = (s: SeatView) => {
      if (s.payPerUse) return [];
      if (!billed.has(s.name))
        billed.set(s.name, billedSources(s.agent as AgentName, s.env, cwd, { command: o.command ?? [] }));
      return billed.get(s.name) ?? [];
    };
    const candidates =
      which === 'auto'
        ? views
            .filter(
              (s) =>
                (agent === null || s.agent === agent) &&
                (pool === undefined || s.pool === pool) &&
                (!s.payPerUse || (o.billedToo === true && pool !== undefined)) &&
                s.state !== 'exhausted',
            )
            .sort(
              (a, b) => Number(a.payPerUse) - Number(b.payPerUse) || live(a) - live(b) || a.name.localeCompare(b.name),
            )
        : [views.find((s) => s.name === which) ?? (await this.get(seatName(which)))];
    if (which !== 'auto') {
      const s = candidates[0] as SeatView;
      if (agent !== null && s.agent !== agent)
        throw new LanesError('E_USAGE', `the seat ${s.name} is a ${s.agent} login; this session runs ${agent}`, {
          hint: `choose a ${agent} seat (lanes seat ls), or --seat auto`,
        });
      if (billedOf(s).length > 0)
        throw new LanesError(
          'E_PAY_PER_USE',
          `the seat ${s.name} would bill per call: ${describeSources(billedOf(s))}`,
          {
            hint: HINT_BILLED,
            details: { seat: s.name, sources: billedOf(s) },
          },
        );
      if (s.state === 'exhausted')
        throw new LanesError(
          'E_NO_SEAT',
          `the seat ${s.name} ran out (${s.exhaustedWhy ?? 'exhausted'}) and resets at ${at(s.until ?? now)}`,
          {
            hint: 'choose another seat, --seat auto, or lanes seat reset NAME when you know it has quota again',
            details: { seat: s.name, until: s.until },
          },
        );
    }
    const before = await this.leaseOf(sessionId);
    for (const s of candidates) {
      // Its files are read only when its turn comes (the first free seat is usually the one taken).
      if (which === 'auto' && billedOf(s).length > 0) continue;
      for (let slot = 1; slot <= s.concurrency; slot++) {
        if (before?.seat.name === s.name && before.slot === slot) return before;
        try {
          const [grant] = await this.claims.claim([seatResource(s.name, slot)], { session: sessionId });
          if (before) await this.claims.release([before.resource], { session: sessionId });
          return { seat: s, slot, token: grant?.token ?? 0, resource: seatResource(s.name, slot) };
        } catch (e) {
          if ((e as { code?: unknown }).code !== 'E_CLAIM_HELD') throw e;
        }
      }
    }
    // None: every seat's reason is said, a billed key's file included.
    for (const s of candidates) billedOf(s);
    throw noSeat(which, agent, pool === undefined ? views : views.filter((s) => s.pool === pool), now, billed);
  }

  /** Gives the session's seat back (its slot's claim). */
  async release(sessionId: string): Promise<SeatLease | null> {
    const l = await this.leaseOf(sessionId);
    if (l) await this.claims.release([l.resource], { session: sessionId });
    return l;
  }

  /**
   * What the session's processes run with on its seat: the seat's variables (references read now
   * from `inherited`, or files), and every agent's billed-per-call variable left out, but the one a
   * pay-per-use seat names itself.
   */
  environmentOf(
    lease: SeatLease,
    inherited: Record<string, string | undefined>,
  ): { set: Record<string, string>; strip: string[] } {
    const set: Record<string, string> = {};
    for (const [k, v] of Object.entries(lease.seat.env)) set[k] = resolveRef(k, v, inherited, lease.seat.name);
    const strip = ALL_PAY_PER_USE.filter((k) => !(k in set) && inherited[k] !== undefined);
    return { set, strip };
  }

  /** The seat of this host a process with this environment runs on, by what selects its login. */
  async seatByEnv(agent: AgentName, env: Record<string, string | undefined>): Promise<SeatRecord | null> {
    const keys = AGENT_LOGINS[agent].selects;
    const seats = (await this.ctx.store.listSeats(this.ctx.host)).filter((s) => s.agent === agent);
    return seats.find((s) => keys.some((k) => s.env[k] !== undefined && s.env[k] === env[k])) ?? null;
  }
}

const live = (s: SeatView) => s.leasedBy.filter((h) => h.state === 'live').length;
