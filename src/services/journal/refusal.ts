import { LanesError } from '../../core/errors.js';
import type { JournalInput } from '../../store/journal-types.js';
import type { LanesContext } from '../context.js';

/** Who a journal entry of one library object's decisions names: its session, repository and ticket. */
export type Who = () => Promise<Pick<JournalInput, 'session' | 'repo' | 'ticket'>>;

/**
 * A refusal that protects someone's work (a stale token, a handoff of the wrong writer) is a
 * decision too: recorded, then thrown as before.
 */
export function journaledRefusal(ctx: LanesContext, who: Who) {
  return async <T>(
    run: Promise<T>,
    codes: string[],
    entry: (e: LanesError) => Omit<JournalInput, 'details'>,
  ): Promise<T> => {
    try {
      return await run;
    } catch (e) {
      if (e instanceof LanesError && codes.includes(e.code))
        await ctx.journal.record({
          ...(await who()),
          ...entry(e),
          details: { code: e.code, message: e.message, ...(e.details ?? {}) },
        });
      throw e;
    }
  };
}
