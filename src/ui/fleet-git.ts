// The git half of the dashboard's picture: each session's branch, uncommitted files and commits
// ahead (progress), the snapshots of each repository, the predicted conflicts. Git is read where
// something happened, not on a clock: the worktrees of sessions the store shows active (a lanes
// call moved their last-seen time, a claim, a commit or a snapshot of theirs was journaled), and
// every worktree only now and then, for edits made where lanes does not see them (a person's
// editor). Conflict prediction, the costliest read, runs after such a change, at most every few
// seconds, and otherwise seldom.
import { mainWorktreeOf } from '../index.js';
import type { Lanes, SessionProgress, SessionView } from '../index.js';
import { toUiConflicts, toUiSnapshot } from './fleet-map.js';
import type { UiConflicts, UiSnapshot } from './view-types.js';

export interface GitTiming {
  /** Every worktree's progress and every repository's snapshots are read again at least this often. */
  everyMs: number;
  /** A worktree is read again after activity at most this often. */
  minMs: number;
  /** Conflicts: at most this often after a change… */
  conflictsEveryMs: number;
  /** …and at least this often. */
  conflictsIdleMs: number;
}

export interface GitSource {
  lanes: Lanes;
  /** This host (git facts are read of its worktrees only). */
  host: string;
  lanesOfRepo(repo: string): Promise<Lanes | null>;
  /** The open sessions now. */
  open(): SessionView[];
  /** The store's clock now (conflicts are stamped with it). */
  now(): number;
  /** Something shown changed: publish. */
  changed(): void;
}

export class FleetGit {
  progress = new Map<string, SessionProgress>();
  snapshots: UiSnapshot[] = [];
  conflicts: UiConflicts[] = [];
  /** Reads done (tests: nothing is read while nothing happens). */
  reads = 0;
  private pending = new Set<string>();
  private readonly readAt = new Map<string, number>();
  private all = true;
  private snapshotsDue = true;
  private running: Promise<void> | null = null;
  private lastAll = 0;
  private conflictsDirty = true;
  private conflictsRunning = false;
  private lastConflicts = 0;

  constructor(
    private readonly src: GitSource,
    private readonly timing: GitTiming,
  ) {}

  /** These sessions' worktrees are read at the next run. */
  touch(ids: Iterable<string>): void {
    for (const id of ids) this.pending.add(id);
  }

  /** Every worktree and the snapshots are read at the next run (a change made through the page). */
  touchAll(): void {
    this.all = true;
    this.snapshotsDue = true;
  }

  touchSnapshots(): void {
    this.snapshotsDue = true;
  }

  /** Reads what is due, one run at a time; resolves when this run (or the one running) is done. */
  run(at = Date.now()): Promise<void> {
    if (at - this.lastAll >= this.timing.everyMs) this.touchAll();
    if (this.running) return this.running;
    if (!this.all && this.pending.size === 0 && !this.snapshotsDue) return Promise.resolve();
    this.running = this.read(at).finally(() => (this.running = null));
    return this.running;
  }

  private async read(at: number): Promise<void> {
    const open = this.src.open();
    // This host's worktrees only (another host's of the same path is another directory); sessions
    // sharing one share its facts: one of them is asked for, all get the answer.
    const here = open.filter((s) => s.worktree && s.owner.host === this.src.host);
    const sharing = new Map<string, string[]>();
    for (const s of here) sharing.set(s.worktree!, [...(sharing.get(s.worktree!) ?? []), s.id]);
    const worktreeOf = new Map(here.map((s) => [s.id, s.worktree!]));
    const all = this.all;
    const wanted = all ? here.map((s) => s.id) : [...this.pending];
    const snapshots = this.snapshotsDue;
    this.all = false;
    this.pending.clear();
    this.snapshotsDue = false;
    if (all) this.lastAll = at;
    // A worktree read a moment ago waits (a busy session calls lanes often); it is not dropped.
    const asked = new Map<string, string>();
    for (const id of wanted) {
      const wt = worktreeOf.get(id);
      if (!wt || asked.has(wt)) continue;
      if (!all && at - (this.readAt.get(wt) ?? -Infinity) < this.timing.minMs) this.pending.add(id);
      else asked.set(wt, id);
    }
    if (asked.size === 0 && !snapshots) return;
    this.reads++;
    let changed = false;
    if (asked.size > 0) {
      for (const wt of asked.keys()) this.readAt.set(wt, at);
      const read = await this.src.lanes.sessions.progress([...asked.values()]);
      const next = all ? new Map<string, SessionProgress>() : new Map(this.progress);
      for (const p of read)
        for (const id of sharing.get(p.worktree) ?? [p.session]) next.set(id, { ...p, session: id });
      const known = new Set(open.map((s) => s.id));
      for (const id of next.keys()) if (!known.has(id)) next.delete(id);
      if (!sameProgress(this.progress, next)) {
        this.progress = next;
        this.conflictsDirty = changed = true;
      }
    }
    if (snapshots) {
      const list = await this.readSnapshots();
      if (JSON.stringify(list) !== JSON.stringify(this.snapshots)) {
        this.snapshots = list;
        changed = true;
      }
    }
    if (changed) this.src.changed();
  }

  private async readSnapshots(): Promise<UiSnapshot[]> {
    const snapshots: UiSnapshot[] = [];
    for (const repo of this.repos()) {
      const l = await this.src.lanesOfRepo(repo).catch(() => null);
      if (!l) continue;
      // From the main worktree, never another live session's (which lanesOfRepo may have opened in).
      const where = mainWorktreeOf(repo) ?? (await l.repository())?.worktreeRoot ?? '';
      for (const s of await l.snapshots.list().catch(() => [])) snapshots.push(toUiSnapshot(repo, where, s));
    }
    return snapshots.sort((a, b) => b.time - a.time || b.n - a.n);
  }

  /** The sessions, their worktrees or their repositories changed (a session came, went or moved). */
  fleetChanged(): void {
    this.conflictsDirty = true;
  }

  /** Predicts conflicts when something changed since the last prediction (at most every few seconds), else seldom. */
  async runConflicts(at = Date.now()): Promise<void> {
    if (this.conflictsRunning) return;
    const since = at - this.lastConflicts;
    if (since < this.timing.conflictsEveryMs || (!this.conflictsDirty && since < this.timing.conflictsIdleMs)) return;
    this.conflictsRunning = true;
    this.conflictsDirty = false;
    this.lastConflicts = at;
    try {
      const found: UiConflicts[] = [];
      for (const repo of this.repos()) {
        const l = await this.src.lanesOfRepo(repo).catch(() => null);
        if (!l) continue;
        try {
          found.push(toUiConflicts(repo, await l.conflicts(), null, this.src.now()));
        } catch (e) {
          found.push(toUiConflicts(repo, null, e instanceof Error ? e.message : String(e), this.src.now()));
        }
      }
      // A repository's unchanged prediction keeps the time it took this form (the page says since
      // when): re-reading it is not news to push.
      const key = (c: UiConflicts) => JSON.stringify({ ...c, at: 0 });
      const before = new Map(this.conflicts.map((c) => [c.repo, c]));
      const next = found.map((c) => {
        const old = before.get(c.repo);
        return old && key(old) === key(c) ? old : c;
      });
      if (next.length !== this.conflicts.length || next.some((c, i) => c !== this.conflicts[i])) {
        this.conflicts = next;
        this.src.changed();
      }
    } finally {
      this.conflictsRunning = false;
    }
  }

  /** Repositories with a live session on this host (the ones whose worktrees can be read here). */
  private repos(): string[] {
    return [
      ...new Set(
        this.src
          .open()
          .filter((s) => s.repo && s.state !== 'ended')
          .map((s) => s.repo as string),
      ),
    ];
  }
}

function sameProgress(a: Map<string, SessionProgress>, b: Map<string, SessionProgress>): boolean {
  if (a.size !== b.size) return false;
  for (const [id, p] of b) {
    const q = a.get(id);
    if (
      !q ||
      q.branch !== p.branch ||
      q.uncommitted !== p.uncommitted ||
      q.ahead !== p.ahead ||
      q.target !== p.target ||
      q.worktree !== p.worktree
    )
      return false;
  }
  return true;
}
