// The dashboard's picture of the fleet, kept current by polling the library cheaply and pushed to
// every open page when it changes. Store facts (sessions, claims, waits: one read each) are polled
// every `pollMs` and a new journal entry triggers a poll at once; git facts (branches, uncommitted
// files, snapshots) follow a change within a moment and are re-read every few seconds anyway (files
// change without the store knowing); conflict prediction, the costliest, at most every few seconds.
import { existsSync } from 'node:fs';
import { hostId } from '../core/process-identity.js';
import { OutageWatch, isOutage, mainWorktreeOf, openLanes } from '../index.js';
import type { Lanes, LanesOptions, SessionProgress, SessionView } from '../index.js';
import { toUiConflicts, toUiJournal, toUiSession, toUiSnapshot, toUiWait } from './fleet-map.js';
import type { Redactor } from './redact.js';
import type { FleetView, UiConflicts, UiJournalEntry, UiSnapshot, UiWait } from './view-types.js';

export interface FleetOptions {
  /** Options for each per-repository library object (the store, env). */
  base: LanesOptions;
  redactor: Redactor;
  pollMs?: number;
  gitEveryMs?: number;
  conflictsEveryMs?: number;
  /** Ended sessions shown: those ended within this window, at most `endedCap`. */
  endedWindowMs?: number;
  endedCap?: number;
}

type Listener = (event: 'fleet' | 'journal', json: string) => void;

export class Fleet {
  private readonly listeners = new Set<Listener>();
  private readonly repoLanes = new Map<string, Promise<Lanes>>();
  private open: SessionView[] = [];
  private ended: SessionView[] = [];
  private endedHidden = 0;
  private waits: UiWait[] = [];
  private progress = new Map<string, SessionProgress>();
  private snapshots: UiSnapshot[] = [];
  private conflicts: UiConflicts[] = [];
  private cycles: UiJournalEntry[] = [];
  private lastJson = '';
  private now = 0;
  private timers: NodeJS.Timeout[] = [];
  private pollTimer: NodeJS.Timeout | undefined;
  private readonly stop = new AbortController();
  private gitRunning = false;
  private conflictsRunning = false;
  private lastEndedRead = 0;
  private lastOpenCount = -1;
  private readonly hostName = hostId();
  private readonly outage = new OutageWatch((m) => process.stderr.write(`${m}\n`), 'lanes ui');

  constructor(
    private readonly lanes: Lanes,
    private readonly options: FleetOptions,
  ) {}

  /** Reads everything once, then keeps polling until close(). */
  async start(): Promise<void> {
    await this.pollStore();
    await this.readGit();
    this.publish();
    // The costliest read (git merge-tree per pair) does not hold up the first page.
    void this.readConflicts()
      .then(() => this.publish())
      .catch(() => undefined);
    const every = (ms: number, fn: () => Promise<void>) => {
      const t = setInterval(() => void fn().catch(() => undefined), ms);
      t.unref();
      this.timers.push(t);
    };
    this.pollLoop(this.options.pollMs ?? 250);
    every(this.options.gitEveryMs ?? 3000, () => this.readGit().then(() => this.publish()));
    every(this.options.conflictsEveryMs ?? 10_000, () => this.readConflicts().then(() => this.publish()));
    this.cycles = (await this.lanes.journal.list({ kinds: ['claim.cycle'], order: 'desc', limit: 20 })).map(
      toUiJournal,
    );
    // A new entry is a decision just made: poll the store at once rather than at the next tick.
    void this.lanes.journal
      .follow({}, (entries) => this.onJournal(entries), { signal: this.stop.signal, pollMs: 200 })
      .catch(() => undefined);
  }

  /**
   * Polls the store every `ms`, or twice the last poll's duration when that is longer (a big store
   * on a busy machine must not keep the server from answering its pages).
   */
  private pollLoop(ms: number): void {
    const next = (delay: number) => {
      this.pollTimer = setTimeout(async () => {
        const started = Date.now();
        // An outage is told once when it starts and once when it ends; the page keeps its last picture.
        await this.tick().then(
          () => this.outage.up(),
          (e: unknown) => {
            if (isOutage(e)) this.outage.failed(e);
          },
        );
        if (!this.stop.signal.aborted) next(Math.max(ms, 2 * (Date.now() - started)));
      }, delay);
      this.pollTimer.unref();
    };
    next(ms);
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The current picture, as the redacted JSON the page receives. */
  json(): string {
    return this.lastJson || this.options.redactor.json(this.view(this.now, this.version));
  }

  /** The library object of a repository (opened in one of its worktrees on this host), or null. */
  async lanesOfRepo(repo: string): Promise<Lanes | null> {
    const known = this.repoLanes.get(repo);
    if (known) return known;
    const where = [...this.open, ...this.ended].find(
      (s) => s.repo === repo && s.worktree && s.owner.host === this.hostName && existsSync(s.worktree),
    )?.worktree;
    if (!where) return null;
    const opening = openLanes({ ...this.options.base, session: null, notice: false, cwd: where });
    this.repoLanes.set(repo, opening);
    return opening;
  }

  /** A change made through the dashboard: read at once rather than at the next tick. */
  async refresh(): Promise<void> {
    await this.pollStore();
    await this.readGit();
    this.publish();
  }

  async close(): Promise<void> {
    this.stop.abort();
    for (const t of this.timers) clearInterval(t);
    if (this.pollTimer) clearTimeout(this.pollTimer);
    for (const l of this.repoLanes.values()) await (await l).close({ heartbeat: false }).catch(() => undefined);
  }

  /** One poll at a time: a poll asked for while one runs (a journal entry) runs once right after it. */
  private async tick(): Promise<void> {
    if (this.polling) {
      this.pollAgain = true;
      return this.polling;
    }
    this.polling = (async () => {
      do {
        this.pollAgain = false;
        const before = this.storeKey();
        await this.pollStore();
        this.publish();
        if (this.storeKey() !== before) void this.readGit().then(() => this.publish());
      } while (this.pollAgain);
    })().finally(() => (this.polling = null));
    return this.polling;
  }

  private polling: Promise<void> | null = null;
  private pollAgain = false;

  private storeKey(): string {
    return JSON.stringify([this.open.map((s) => [s.id, s.state, s.worktree]), this.ended.length]);
  }

  private async pollStore(): Promise<void> {
    const [open, now, waits] = await Promise.all([
      this.lanes.sessions.list(),
      this.lanes.now(),
      this.lanes.claims.waits(),
    ]);
    this.open = open;
    this.now = now;
    this.waits = waits.map(toUiWait);
    // Ended sessions only change when one ends (the open list then shrinks): read them seldom.
    if (now - this.lastEndedRead > 5000 || open.length !== this.lastOpenCount) {
      this.lastEndedRead = now;
      this.lastOpenCount = open.length;
      const window = this.options.endedWindowMs ?? 24 * 3600_000;
      const all = (await this.lanes.sessions.list({ all: true })).filter((s) => s.endedAt !== null);
      const recent = all.filter((s) => now - (s.endedAt ?? 0) <= window).sort((a, b) => b.endedAt! - a.endedAt!);
      this.ended = recent.slice(0, this.options.endedCap ?? 100);
      this.endedHidden = all.length - this.ended.length;
    }
  }

  private async readGit(): Promise<void> {
    if (this.gitRunning) return;
    this.gitRunning = true;
    try {
      const ids = this.open.map((s) => s.id);
      this.progress = new Map((await this.lanes.sessions.progress(ids)).map((p) => [p.session, p]));
      const snapshots: UiSnapshot[] = [];
      for (const repo of this.repos()) {
        const l = await this.lanesOfRepo(repo).catch(() => null);
        if (!l) continue;
        // From the main worktree, never another live session's (which lanesOfRepo may have opened in).
        const where = mainWorktreeOf(repo) ?? (await l.repository())?.worktreeRoot ?? '';
        for (const s of await l.snapshots.list().catch(() => [])) snapshots.push(toUiSnapshot(repo, where, s));
      }
      this.snapshots = snapshots.sort((a, b) => b.time - a.time || b.n - a.n);
    } finally {
      this.gitRunning = false;
    }
  }

  private async readConflicts(): Promise<void> {
    if (this.conflictsRunning) return;
    this.conflictsRunning = true;
    try {
      const found: UiConflicts[] = [];
      for (const repo of this.repos()) {
        const l = await this.lanesOfRepo(repo).catch(() => null);
        if (!l) continue;
        try {
          found.push(toUiConflicts(repo, await l.conflicts(), null, this.now));
        } catch (e) {
          found.push(toUiConflicts(repo, null, e instanceof Error ? e.message : String(e), this.now));
        }
      }
      this.conflicts = found;
    } finally {
      this.conflictsRunning = false;
    }
  }

  /** Repositories with a live session on this host (the ones whose worktrees can be read here). */
  private repos(): string[] {
    return [...new Set(this.open.filter((s) => s.repo && s.state !== 'ended').map((s) => s.repo as string))];
  }

  private async onJournal(read: Omit<UiJournalEntry, 'text'>[]): Promise<void> {
    const entries = read.map(toUiJournal);
    const cycles = entries.filter((e) => e.kind === 'claim.cycle');
    if (cycles.length > 0) this.cycles = [...cycles.reverse(), ...this.cycles].slice(0, 20);
    this.emit('journal', this.options.redactor.json(entries));
    await this.tick();
  }

  private view(at: number, version: number): FleetView {
    const sessions = [...this.open, ...this.ended].map((s) => toUiSession(s, this.progress.get(s.id)));
    return {
      at,
      version,
      host: this.hostName,
      store: { backend: this.lanes.storeInfo.backend, location: this.lanes.storeInfo.location },
      sessions,
      endedHidden: this.endedHidden,
      waits: this.waits,
      cycles: this.cycles,
      conflicts: this.conflicts,
      snapshots: this.snapshots,
      hidden: this.options.redactor.names,
    };
  }

  /** Sends the picture to every page when it differs (the clock aside) from the last one sent. */
  private publish(): void {
    // One picture, compared without its clock and version (read on every poll, sent on change only).
    const view = this.view(0, 0);
    const same = JSON.stringify(view);
    if (same === this.lastCompared) return;
    this.lastCompared = same;
    this.version++;
    this.lastJson = this.options.redactor.json({ ...view, at: this.now, version: this.version });
    this.emit('fleet', this.lastJson);
  }

  private lastCompared = '';
  private version = 0;

  private emit(event: 'fleet' | 'journal', json: string): void {
    for (const l of this.listeners) l(event, json);
  }
}
