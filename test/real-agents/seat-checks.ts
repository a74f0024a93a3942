import assert from 'node:assert/strict';
import { must } from './world.js';
import type { World } from './world.js';

// What every seats test of a real agent reads back through lanes' own CLI: the journal, and seat A
// as `lanes seat ls --json` shows it once its login ran out.

export interface SeatJson {
  name: string;
  state: string;
  until: number | null;
  why: string | null;
  leasedBy: unknown[];
}

export interface Entry {
  kind: string;
  subject: string;
  session: string | null;
  details: Record<string, unknown>;
}

/** Every journal entry (`lanes log --json`), oldest first. */
export async function journal(w: Pick<World, 'env' | 'repo'>): Promise<Entry[]> {
  return (await must(['log', '--json', '--limit', '1000'], w))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Entry);
}

/**
 * Seat `name` is exhausted for `why` until the reset the provider named (`resetsAt`, Unix
 * seconds), to within `withinMs` (a reset counted from "retry in Ns" depends on when it was read).
 */
export async function seatOut(
  w: Pick<World, 'env' | 'repo'>,
  o: { name?: string; why: string; resetsAt: number; withinMs?: number },
  context: string,
): Promise<SeatJson> {
  const seats = JSON.parse(await must(['seat', 'ls', '--json'], w)) as SeatJson[];
  const s = seats.find((x) => x.name === (o.name ?? 'A'));
  assert.ok(s, `no seat ${o.name ?? 'A'}: ${context}`);
  assert.equal(s.state, 'exhausted', `seat ${s.name} is ${s.state}: ${context}`);
  assert.equal(s.why, o.why);
  assert.ok(
    Math.abs((s.until ?? 0) - o.resetsAt * 1000) <= (o.withinMs ?? 0),
    `seat ${s.name} until ${new Date(s.until ?? 0).toISOString()}, the reset ${new Date(o.resetsAt * 1000).toISOString()}: ${context}`,
  );
  return s;
}
