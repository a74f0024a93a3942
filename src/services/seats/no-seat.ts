import { LanesError } from '../../core/errors.js';
import { describeSources } from './billed-sources.js';
import type { BilledSource } from './billed-sources.js';
import type { SeatView } from './seats.js';
import { utcMinute } from '../../core/duration.js';

/** What to do about a login whose own files bring a billed key back. */
export const HINT_BILLED =
  'take the key out of the file named (the login keeps its subscription); a seat meant to bill by the call is added with --pay-per-use and its key by reference';

export const at = utcMinute;

/** Why no seat could be leased, each seat of the pool with its reason. */
export function noSeat(
  which: string,
  agent: string | null,
  views: SeatView[],
  now: number,
  billed: ReadonlyMap<string, BilledSource[]> = new Map(),
): LanesError {
  const pool =
    which === 'auto' ? views.filter((s) => agent === null || s.agent === agent) : views.filter((s) => s.name === which);
  const said = pool.map((s) =>
    s.state === 'exhausted'
      ? `${s.name} ran out until ${at(s.until ?? now)}`
      : s.payPerUse && which === 'auto'
        ? `${s.name} bills per call (never picked by auto)`
        : billed.get(s.name)?.length
          ? `${s.name} would bill per call: ${describeSources(billed.get(s.name) ?? [])}`
          : `${s.name} is in use by ${
              s.leasedBy
                .filter((h) => h.state === 'live')
                .map((h) => h.session)
                .join(', ') || 'another session'
            }`,
  );
  return new LanesError(
    'E_NO_SEAT',
    which === 'auto'
      ? pool.length
        ? `no ${agent ?? ''} seat is free: ${said.join('; ')}`
        : `this host has no ${agent ?? ''} seat`.replace('  ', ' ')
      : `the seat ${which} is in use: ${said.join('; ')}`,
    {
      hint: [...billed.values()].some((b) => b.length)
        ? HINT_BILLED
        : pool.length
          ? 'wait for one to free or reset (lanes seat ls), or add a seat (lanes seat add)'
          : `add one: lanes seat add NAME --agent ${agent ?? 'AGENT'} --env KEY=VALUE`,
      details: { seats: pool.map((s) => ({ name: s.name, state: s.state, until: s.until })) },
    },
  );
}
