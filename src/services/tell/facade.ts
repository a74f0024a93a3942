import type { LanesContext } from '../context.js';
import { sessionNamed } from '../sessions/named.js';
import type { Told } from './tell.js';

export type { Told } from './tell.js';

/** lanes tell in the library (lanes.sessions.tell / told): the journal is the record of both. */
export const tellings = (ctx: LanesContext) => ({
  tell: async (name: string, message: string): Promise<Told> =>
    (await import('./tell.js')).tell(ctx, await sessionNamed(ctx, name), message),
  told: async (name: string): Promise<Told[]> =>
    (await import('./tell.js')).toldTo(ctx, (await sessionNamed(ctx, name)).id),
  /** Records a message as delivered another way than the hooks (typed into the agent's idle tmux pane). */
  delivered: async (session: string, seq: number, via: string): Promise<void> => {
    const s = await sessionNamed(ctx, session);
    await ctx.store.appendJournal([
      { kind: 'tell.delivered', subject: s.id, session: s.id, repo: s.repo, ticket: s.ticket, details: { seq, via } },
    ]);
  },
});
