import type { AgentName } from '../../core/hook-event.js';
import type { SeatRecord } from '../../store/seat-types.js';
import type { LanesContext } from '../context.js';
import { loadConfig } from '../config.js';
import type { SeatService } from './seats.js';
import { utcMinute } from '../../core/duration.js';

// An agent said its login ran out (a usage limit, a quota, a billing error): its seat is exhausted
// until the reset the agent named, else [seats] default_reset from now, and no lease takes it
// before then. Found by what selects the login in the agent's environment (a login used outside
// lanes new is marked too), else by the session's lease (the agent's own session, or the session
// lanes started it as: LANES_SESSION).

export interface QuotaSignal {
  agent: AgentName;
  /** The agent's own session, and the session lanes runs it as (LANES_SESSION), either may be null. */
  sessions: (string | null)[];
  env: Record<string, string | undefined>;
  /** rate_limit, billing_error, usage_limit_reached, quota … as the agent names it. */
  why: string;
  message: string | null;
  /** When the agent says the limit resets (ms since the epoch), if it says. */
  resetAt: number | null;
}

export interface Exhausted {
  seat: SeatRecord;
  until: number;
  /** False when the seat was already exhausted until then or later (the same limit told again). */
  changed: boolean;
  /** The session whose lease named the seat, if one did. */
  session: string | null;
}

export async function seatExhausted(ctx: LanesContext, seats: SeatService, q: QuotaSignal): Promise<Exhausted | null> {
  let seat: SeatRecord | null = null;
  let session: string | null = null;
  for (const id of q.sessions) {
    if (!id) continue;
    const lease = await seats.leaseOf(id);
    if (lease) {
      seat = lease.seat;
      session = id;
      break;
    }
  }
  // The login the agent ran with is the one that ran out: a report that comes late (a SessionEnd
  // hook still running when lanes' wrapper, having read the same error, moved the session to the
  // next seat) names it by the agent's environment, not by the session's lease of now.
  const ran = await seats.seatByEnv(q.agent, q.env);
  if (ran && (!seat || seat.host !== ran.host || seat.name !== ran.name)) seat = ran;
  if (!seat) return null;
  const now = await ctx.store.now();
  const defaultMs = (await loadConfig(ctx)).seats.defaultResetMs;
  // A reset in the past (a clock off, a stale header) is no reset: the default applies.
  const until = q.resetAt !== null && q.resetAt > now ? q.resetAt : now + defaultMs;
  const r = await ctx.store.exhaustSeat(seat.host, seat.name, until, q.why, {
    kind: 'seat.exhausted',
    subject: seat.name,
    session,
    details: {
      agent: q.agent,
      why: q.why,
      message: q.message?.slice(0, 500) ?? null,
      until,
      untilText: utcMinute(until),
      resetFrom: q.resetAt !== null && q.resetAt > now ? 'the agent' : 'the default reset ([seats] default_reset)',
    },
  });
  return { seat: r.seat ?? seat, until: r.seat?.exhaustedUntil ?? until, changed: r.changed, session };
}
