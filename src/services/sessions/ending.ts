import type { JournalInput } from '../../store/journal-types.js';
import type { Store } from '../../store/types.js';
import type { LanesContext } from '../context.js';
import type { SnapshotService } from '../snapshots/snapshots.js';
import type { EndOptions, EndResult } from './end-session.js';
import type { SessionService } from './sessions.js';
import type { EnvironmentOf } from './setup.js';

/**
 * The one end of a session, as every door reaches it (lanes.sessions.end): whose session it is
 * decides first (may-end.ts; a refusal is journaled), then its teardown runs while it still holds
 * its ports (for gc's end that may not happen, only while it is as judged), then end-session.ts
 * snapshots its work and ends it.
 */
export function ending(
  ctx: LanesContext,
  store: Store,
  deps: { sessions: SessionService; snapshots: SnapshotService; environmentOf: EnvironmentOf },
  who: () => Promise<Pick<JournalInput, 'session' | 'repo' | 'ticket'>>,
): (name: string, given?: EndOptions | string) => Promise<EndResult> {
  return async (name, given = {}) => {
    const target = await deps.sessions.get(name);
    const o = await (await import('./may-end.js')).endOptionsFor(ctx, target, given, who);
    const { endSession } = await import('./end-session.js');
    const { withTeardown } = await import('./setup.js');
    return withTeardown(ctx, store, target.id, deps.environmentOf, o.unchangedSince, () =>
      endSession(ctx, deps.sessions, deps.snapshots, target.id, o),
    );
  };
}
