// The store half of the dashboard's picture: the open sessions (with their liveness and claims),
// the recently ended ones and the waits. Read whole when the store's change mark says something
// changed; in between only the live sessions are proven live again (the dead and the ended change
// only through the store, which the mark follows).
import { pidGone } from '../core/platform/pid-gone.js';
import type { Lanes, SessionView } from '../index.js';
import type { FleetGit } from './fleet-git.js';
import { toUiWait } from './fleet-map.js';
import type { UiWait } from './view-types.js';

export interface SessionsOptions {
  /** Ended sessions shown: those ended within this window, at most `cap`. */
  windowMs: number;
  cap: number;
  /** This host (its owners are proven from their processes). */
  host: string;
  /**
   * This host's owners are proven from their process facts (pid, start time, state) at least this
   * often; at every judgement in between, a pid found gone (one kill(pid, 0) each: an exit, the
   * usual death) makes the proof due at once. A pid reused or a zombie waits for the next proof.
   */
  proofEveryMs: number;
}

export class FleetSessions {
  open: SessionView[] = [];
  ended: SessionView[] = [];
  endedHidden = 0;
  waits: UiWait[] = [];
  reads = 0;
  proofs = 0;
  private openKey = '';
  private lastEndedRead = 0;
  /** The store's clock at the last read of the ended sessions. */
  private endedReadAt = 0;
  private lastFull = 0;

  constructor(
    private readonly lanes: Lanes,
    private readonly git: FleetGit,
    private readonly options: SessionsOptions,
  ) {}

  /** Reads the sessions (with their liveness), claims and waits; the worktrees of those that changed are read again. */
  async read(now: number): Promise<void> {
    this.reads++;
    this.lastFull = Date.now();
    const [open, waits] = await Promise.all([this.lanes.sessions.list(), this.lanes.claims.waits()]);
    const before = new Map(this.open.map((s) => [s.id, s]));
    const moved = open.filter((s) => {
      const b = before.get(s.id);
      return !b || b.lastSeenAt !== s.lastSeenAt || b.worktree !== s.worktree || b.state !== s.state;
    });
    this.git.touch(moved.map((s) => s.id));
    const openKey = open.map((s) => `${s.id}\u0000${s.worktree ?? ''}`).join('\u0001');
    if (openKey !== this.openKey) this.git.fleetChanged();
    this.openKey = openKey;
    // Ended sessions change only when an open one ends or an ended one comes back: one created
    // after the last read of them (a clock's margin aside) was not among them. Otherwise they are
    // read once in a while, for those leaving the window.
    const openIds = new Set(open.map((s) => s.id));
    const ended = this.open.some((s) => !openIds.has(s.id));
    const back = open.some((s) => !before.has(s.id) && s.createdAt <= this.endedReadAt + 5000);
    this.open = open;
    this.waits = waits.map(toUiWait);
    if (this.endedReadAt === 0 || ended || back || Date.now() - this.lastEndedRead > 600_000) {
      this.endedReadAt = now;
      this.lastEndedRead = Date.now();
      const all = (await this.lanes.sessions.list({ all: true })).filter((s) => s.endedAt !== null);
      const recent = all
        .filter((s) => now - (s.endedAt ?? 0) <= this.options.windowMs)
        .sort((a, b) => b.endedAt! - a.endedAt!);
      this.ended = recent.slice(0, this.options.cap);
      this.endedHidden = all.length - this.ended.length;
    }
  }

  /**
   * Proves the live sessions live again against the store's clock `now` (this host's from their
   * processes, other hosts' by their leases), and the waiters when there are waits; true when
   * anything shown changed. A death found is recorded by the library, so the next change mark
   * moves and the store is read with it.
   */
  async prove(now: number): Promise<boolean> {
    const live = this.open.filter((s) => s.state === 'live');
    if (live.length === 0 && this.waits.length === 0) return false;
    this.proofs++;
    // Other hosts' leases are arithmetic. This host's owners need their facts read: every
    // proofEveryMs (a read of the store reads them too), and at once when one of their pids is
    // gone (one kill(pid, 0) per owner process, not per session).
    const here = (s: SessionView) => s.owner.host === this.options.host;
    const pids = () => new Set(live.filter(here).map((s) => s.owner.pid));
    const due = Date.now() - this.lastFull >= this.options.proofEveryMs || [...pids()].some(pidGone);
    if (due) this.lastFull = Date.now();
    const judged = due ? live : live.filter((s) => !here(s));
    const states = judged.length > 0 ? await this.lanes.sessions.judge(judged, now) : new Map();
    let changed = false;
    if (states.size > 0)
      this.open = this.open.map((s) => {
        const j = states.get(s.id);
        if (!j || (j.state === s.state && j.why === s.why)) return s;
        changed = true;
        return { ...s, state: j.state, why: j.why };
      });
    if (this.waits.length > 0) {
      const waits = (await this.lanes.claims.waits()).map(toUiWait);
      if (JSON.stringify(waits) !== JSON.stringify(this.waits)) {
        this.waits = waits;
        changed = true;
      }
    }
    return changed;
  }
}
