import { LanesError } from '../../core/errors.js';
import { formatResource } from '../../core/resource.js';
import type { ResourceRef } from '../../core/resource.js';
import type { CycleStep, WaitRecord } from '../../store/journal-types.js';
import { describeCycle } from '../../store/shared/wait-cycle.js';
import type { LanesContext } from '../context.js';

/** How often a waiter re-checks its wait for a cycle closed since (holders change while it waits). */
const RECHECK_MS = 500;
/**
 * A wait is recorded once it has lasted this long: most waits end within milliseconds (a holder
 * releasing), and recording each would cost two store writes per contended claim. A deadlock is
 * still refused within this bound, not "at once" to the millisecond.
 */
const RECORD_AFTER_MS = 200;

/**
 * A `claim --wait` made visible: recorded in the store while it waits (who, for what, since when),
 * refused at once with E_DEADLOCK when waiting would close a cycle, removed when it ends.
 */
export class ClaimWaiter {
  private wait: WaitRecord | null = null;
  private checkedAt = 0;
  private firstRefusal = 0;

  constructor(
    private readonly ctx: LanesContext,
    private readonly sessionId: string,
    private readonly refs: ResourceRef[],
  ) {}

  /** Called after each refusal while waiting. */
  async refused(): Promise<void> {
    this.firstRefusal ||= Date.now();
    if (!this.wait && Date.now() - this.firstRefusal < RECORD_AFTER_MS) return;
    if (!this.wait) {
      const r = await this.ctx.store.registerWait(this.sessionId, this.refs, this.ctx.self(), this.ctx.judge);
      if (!r.ok) throw deadlock(this.sessionId, this.refs, r.cycle);
      this.wait = r.wait;
      this.checkedAt = Date.now();
      return;
    }
    if (Date.now() - this.checkedAt < RECHECK_MS) return;
    this.checkedAt = Date.now();
    const cycle = await this.ctx.store.checkWait(this.wait.id, this.ctx.judge);
    if (cycle) {
      this.wait = null;
      throw deadlock(this.sessionId, this.refs, cycle);
    }
  }

  async end(): Promise<void> {
    if (!this.wait) return;
    const id = this.wait.id;
    this.wait = null;
    await this.ctx.store.endWait(id).catch(() => undefined); // a wait whose process is gone counts for nothing
  }
}

function deadlock(sessionId: string, refs: ResourceRef[], cycle: CycleStep[]): LanesError {
  const mine = cycle.filter((s) => s.heldBy === sessionId).map((s) => formatResource(s.resource));
  return new LanesError(
    'E_DEADLOCK',
    `waiting for ${refs.map(formatResource).join(', ')} would never end: ${describeCycle(cycle)}`,
    {
      hint: `nothing was claimed; release what the others wait for (lanes release ${mine.join(' ') || '…'}) and claim everything you need in one \`lanes claim\` (all or none)`,
      details: {
        cycle: cycle.map((s) => ({ session: s.sessionId, waitsFor: formatResource(s.resource), heldBy: s.heldBy })),
      },
    },
  );
}
