import { openLanes } from '../index.js';
import type { Lanes, LanesOptions } from '../index.js';
import { sessionFor } from './identity.js';
import type { Identity } from './identity.js';

// The store handles of one MCP server, kept for its life: opening the store (and re-finding the
// acting session among every open one) on each tool call cost 62 ms at 5,000 sessions. One handle
// finds the session; one more acts as it, in its worktree, and is opened again only when the
// acting session changes. Each call re-checks the session found last time cheaply (one read and
// one liveness proof): a session that ended or died (the agent's /clear ends it and registers
// another) sends the call through the full rule of identity.ts again.

export interface Acting {
  lanes: Lanes;
  session: string;
  how: string;
}

export class McpHandles {
  private finder: Lanes | null = null;
  private acting: Acting | null = null;

  constructor(
    private readonly base: LanesOptions,
    private readonly me: Identity,
  ) {}

  /** The library as the acting session, for one tool call. */
  async forCall(): Promise<Acting> {
    const finder = (this.finder ??= await openLanes({ ...this.base, session: null }));
    if (this.acting && (await finder.sessions.get(this.acting.session).catch(() => null))?.state === 'live')
      return this.acting;
    const { id, how } = await sessionFor(finder, this.me);
    const view = await finder.sessions.get(id);
    await this.acting?.lanes.close({ heartbeat: false }).catch(() => undefined);
    this.acting = null;
    // Opened as the session, in its worktree: relative paths are the worktree's.
    const lanes = await openLanes({ ...this.base, session: id, cwd: view.worktree ?? view.cwd });
    this.acting = { lanes, session: id, how };
    return this.acting;
  }

  /** After a call that acted: the session's lease, refreshed when older than a twelfth of it (as close() does). */
  async acted(): Promise<void> {
    await this.acting?.lanes.heartbeat({ unlessFresh: true }).catch(() => false);
  }

  /** After the store failed: everything is opened again on the next call. */
  async reset(): Promise<void> {
    const { finder, acting } = this;
    this.finder = null;
    this.acting = null;
    await finder?.close({ heartbeat: false }).catch(() => undefined);
    await acting?.lanes.close({ heartbeat: false }).catch(() => undefined);
  }
}
