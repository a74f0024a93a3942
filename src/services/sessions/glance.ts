import type { ClaimRecord, SessionRecord } from '../../store/types.js';
import type { LanesContext } from '../context.js';
import { touchedOf } from '../hooks/touched.js';
import type { Json } from '../state/state.js';

/** One session at a glance, for a status line: read from the store only (no git, no write). */
export interface SessionGlance {
  session: SessionRecord;
  claims: ClaimRecord[];
  /** Other live sessions of the same repository. */
  others: number;
  /** Paths this session edited that another live session of the repository also edited (hooks' records). */
  overlaps: { session: string; paths: string[] }[];
  /** Other live sessions on the same ticket. */
  sameTicket: string[];
  /** Other live sessions of the repository waiting for their person (a prompt, a question): their labels, else ids. */
  waiting: string[];
}

/**
 * What a status line shows: the session, its claims, how many other live sessions share its
 * repository, and where their edits overlap (the paths the agents' hooks recorded, the same facts
 * the early-conflict warning uses). null when the store does not know the session.
 */
export async function glance(ctx: LanesContext, id: string): Promise<SessionGlance | null> {
  const session = await ctx.store.getSession(id);
  if (!session || session.endedAt !== null) return null;
  const [claims, others] = await Promise.all([
    ctx.store.listClaims({ sessionId: id }),
    session.repo === null ? [] : ctx.liveSessions((s) => s.id !== id && s.repo === session.repo),
  ]);
  const states = new Map(
    (await ctx.store.readStates([id, ...others.map((s) => s.id)])).map((r) => [
      r.sessionId,
      touchedOf(JSON.parse(r.value) as Json),
    ]),
  );
  const mine = new Set(states.get(id) ?? []);
  const overlaps = others
    .map((s) => ({ session: s.id, paths: (states.get(s.id) ?? []).filter((p) => mine.has(p)) }))
    .filter((o) => o.paths.length > 0);
  const sameTicket = session.ticket ? others.filter((s) => s.ticket === session.ticket).map((s) => s.id) : [];
  const waiting = others.filter((s) => s.attention?.state === 'waiting').map((s) => s.label ?? s.id);
  return { session, claims, others: others.length, overlaps, sameTicket, waiting };
}
