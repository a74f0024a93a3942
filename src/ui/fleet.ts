// The dashboard's picture of the fleet, kept current by what changes rather than by reading the
// store again and again, and pushed to every open page when it changes. Every `pollMs` the server
// reads the store's change mark (Lanes.changes: the journal's last number; on SQLite no table is
// read while nothing was written). New journal entries go to the pages (fleet-journal.ts), and
// when they concern sessions or claims the store is read again (fleet-sessions.ts); every
// `fleetEveryMs` the mark's fleet part says whether an open session or a wait changed without an
// entry (a heartbeat, attention, a death recorded, a wait ended). What changes with no write at all
// is proven on its own clock: every `livenessEveryMs` the live sessions only (not the dead or
// ended) are judged again, this host's from their processes, other hosts' by their leases. Git
// facts follow activity (fleet-git.ts). With nothing happening, a tick is one small read.
import { existsSync } from 'node:fs';
import { platform } from '../core/platform/select.js';
import { hostId } from '../core/process-identity.js';
import { OutageWatch, isOutage, openLanes } from '../index.js';
import type { ChangeMark, Lanes } from '../index.js';
import { FleetGit } from './fleet-git.js';
import { FleetJournal } from './fleet-journal.js';
import { toUiSession } from './fleet-map.js';
import { FleetSessions } from './fleet-sessions.js';
import { PictureJson } from './picture-json.js';
import type { FleetOptions, FleetStats } from './fleet-options.js';
import type { FleetView } from './view-types.js';

export type { FleetOptions, FleetStats } from './fleet-options.js';

type Listener = (event: 'fleet' | 'journal', json: string) => void;

export class Fleet {
  private readonly listeners = new Set<Listener>();
  private readonly repoLanes = new Map<string, Promise<Lanes>>();
  /** The store's clock at the last mark, and this process' clock then. */
  private now = 0;
  private nowAt = 0;
  private mark: ChangeMark = { journal: '', fleet: null, now: 0 };
  private lastFleetMark = 0;
  private lastProof = 0;
  private storeDue = false;
  private nextStoreRead = 0;
  private dirty = true;
  private lastJson = '';
  private lastCompared = '';
  private version = 0;
  private pollTimer: NodeJS.Timeout | undefined;
  /** When the mark last moved (the poll is quicker for a while after). */
  private changedAt = 0;
  private readonly stop = new AbortController();
  private readonly hostName = hostId();
  private readonly outage = new OutageWatch((m) => process.stderr.write(`${m}\n`), 'lanes ui');
  private readonly git: FleetGit;
  private readonly sessions: FleetSessions;
  private readonly journal: FleetJournal;
  private readonly counts = { marks: 0, publishes: 0 };
  private readonly picture: PictureJson;

  constructor(
    private readonly lanes: Lanes,
    private readonly options: FleetOptions,
  ) {
    this.git = new FleetGit(
      {
        lanes,
        host: this.hostName,
        lanesOfRepo: (repo) => this.lanesOfRepo(repo),
        open: () => this.sessions.open,
        now: () => this.clock(),
        changed: () => {
          this.dirty = true;
          this.publish();
        },
      },
      {
        everyMs: options.gitEveryMs ?? 30_000,
        minMs: 3000,
        conflictsEveryMs: options.conflictsEveryMs ?? 10_000,
        conflictsIdleMs: options.conflictsIdleMs ?? 60_000,
      },
    );
    this.journal = new FleetJournal(lanes);
    this.picture = new PictureJson(options.redactor);
    const every = options.livenessEveryMs ?? 1000;
    this.sessions = new FleetSessions(lanes, this.git, {
      windowMs: options.endedWindowMs ?? 24 * 3600_000,
      cap: options.endedCap ?? 100,
      host: this.hostName,
      proofEveryMs: options.proofEveryMs ?? Math.max(every, platform()?.kind === 'ps' ? 10_000 : 5000),
    });
  }

  /** Reads everything once, then follows the changes until close(). */
  async start(): Promise<void> {
    // The mark before the reads: a change committed meanwhile moves the next one.
    this.setMark(await this.lanes.changes());
    await this.journal.start();
    await this.readStore();
    await this.git.run();
    this.publish();
    // The costliest read (git merge-tree per pair) does not hold up the first page.
    void this.git.runConflicts().catch(() => undefined);
    this.pollLoop();
  }

  /** Differs once the picture or the journal changed (what the report cache keys on). */
  generation(): string {
    return `${this.version}:${this.journal.seen}`;
  }

  stats(): FleetStats {
    return { ...this.counts, storeReads: this.sessions.reads, proofs: this.sessions.proofs, gitReads: this.git.reads };
  }

  /**
   * Every 100 ms on SQLite (the mark is two counters SQLite keeps); on PostgreSQL, a query each,
   * every 250 ms while quiet and every 100 ms for 5 s after a change (a busy fleet's next change
   * is seen sooner; an idle page stays under 1% of a core: bench/ui-idle.mjs).
   */
  private pollLoop(): void {
    const next = () => {
      const busy = this.lanes.storeInfo.backend === 'sqlite' || Date.now() - this.changedAt < 5000;
      const ms = this.options.pollMs ?? (busy ? 100 : 250);
      this.pollTimer = setTimeout(async () => {
        // An outage is told once when it starts and once when it ends; the page keeps its last picture.
        await this.tick().then(
          () => this.outage.up(),
          (e: unknown) => {
            if (isOutage(e)) this.outage.failed(e);
          },
        );
        if (!this.stop.signal.aborted) next();
      }, ms);
      this.pollTimer.unref();
    };
    next();
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * The current picture, as the redacted JSON the page receives, stamped with the store's clock now:
   * a page loaded long after the last change measures ages from now, not from that change.
   */
  json(): string {
    if (!this.lastJson) this.lastJson = this.body(this.version).json;
    return `{"at":${this.clock()},${this.lastJson.slice(1)}`;
  }

  /** The picture's JSON without its clock (json() puts it first), redacted, and without its version (picture-json.ts). */
  private body(version: number): { json: string; compared: string } {
    const { at: _at, version: _version, ...rest } = this.view(0, 0);
    return this.picture.render(rest, version);
  }

  /** The library object of a repository (opened in one of its worktrees on this host), or null. */
  async lanesOfRepo(repo: string): Promise<Lanes | null> {
    const known = this.repoLanes.get(repo);
    if (known) return known;
    const where = [...this.sessions.open, ...this.sessions.ended].find(
      (s) => s.repo === repo && s.worktree && s.owner.host === this.hostName && existsSync(s.worktree),
    )?.worktree;
    if (!where) return null;
    const opening = openLanes({ ...this.options.base, session: null, notice: false, cwd: where });
    this.repoLanes.set(repo, opening);
    return opening;
  }

  /** A change made through the dashboard: read at once rather than at the next tick. */
  async refresh(): Promise<void> {
    await this.readStore();
    this.git.touchAll();
    await this.git.run();
    this.publish();
  }

  async close(): Promise<void> {
    this.stop.abort();
    if (this.pollTimer) clearTimeout(this.pollTimer);
    for (const l of this.repoLanes.values()) await (await l).close({ heartbeat: false }).catch(() => undefined);
  }

  /** One tick at a time: a tick asked for while one runs (a refresh) runs once right after it. */
  private async tick(): Promise<void> {
    if (this.ticking) return this.ticking;
    this.ticking = this.step().finally(() => (this.ticking = null));
    return this.ticking;
  }

  private ticking: Promise<void> | null = null;

  private async step(): Promise<void> {
    const at = Date.now();
    const fleetDue = at - this.lastFleetMark >= (this.options.fleetEveryMs ?? 1000);
    const mark = await this.lanes.changes({ fleet: fleetDue });
    this.counts.marks++;
    if (fleetDue) this.lastFleetMark = at;
    if (mark.journal !== this.mark.journal) await this.readJournal();
    if (mark.fleet !== null && mark.fleet !== this.mark.fleet) this.storeDue = true;
    if (mark.journal !== this.mark.journal || this.storeDue) this.changedAt = at;
    this.setMark(mark);
    // A busy fleet changes at every tick: the store is read again at most every `readEveryMs`, and
    // never more than a third of the time (every three times the last read and publish took: a big
    // store on a busy machine), so the server keeps answering its pages (and a team server its
    // hundred dashboards) while a change reaches them within a few hundred ms.
    if (this.storeDue && at >= this.nextStoreRead) {
      await this.readStore();
      this.publish();
      this.nextStoreRead = at + Math.max(this.options.readEveryMs ?? 100, 3 * (Date.now() - at));
    } else if (at - this.lastProof >= (this.options.livenessEveryMs ?? 1000)) await this.prove(at);
    this.publish();
    void this.git.run(at).catch(() => undefined);
    void this.git.runConflicts(at).catch(() => undefined);
  }

  private setMark(mark: ChangeMark): void {
    this.mark = { journal: mark.journal, fleet: mark.fleet ?? this.mark.fleet, now: mark.now };
    this.now = mark.now;
    this.nowAt = Date.now();
  }

  /** The store's clock now, from the last mark and the time since (a lease is judged against it). */
  private clock(): number {
    return this.now + (Date.now() - this.nowAt);
  }

  /** The new journal entries, to the pages; what they changed is read again. */
  private async readJournal(): Promise<void> {
    const news = await this.journal.read((entries) => this.emit('journal', this.options.redactor.json(entries)));
    if (news.store) this.storeDue = true;
    if (news.cycles) this.dirty = true;
    this.git.touch(news.git);
    if (news.snapshots) this.git.touchSnapshots();
  }

  private async readStore(): Promise<void> {
    await this.sessions.read(this.clock());
    this.storeDue = false;
    this.lastProof = Date.now();
    this.dirty = true;
  }

  private async prove(at: number): Promise<void> {
    this.lastProof = at;
    if (await this.sessions.prove(this.clock())) this.dirty = true;
  }

  private view(at: number, version: number): FleetView {
    const { open, ended, endedHidden, waits } = this.sessions;
    const sessions = [...open, ...ended].map((s) => toUiSession(s, this.git.progress.get(s.id)));
    return {
      at,
      version,
      host: this.hostName,
      store: { backend: this.lanes.storeInfo.backend, location: this.lanes.storeInfo.location },
      sessions,
      endedHidden,
      waits,
      cycles: this.journal.cycles,
      conflicts: this.git.conflicts,
      snapshots: this.git.snapshots,
      hidden: this.options.redactor.names,
    };
  }

  /**
   * Sends the picture to every page when it differs (the clock aside) from the last one sent. Built
   * only after something was read that may have changed it: an idle fleet costs nothing here.
   */
  private publish(): void {
    if (!this.dirty) return;
    this.dirty = false;
    const { json, compared } = this.body(this.version + 1);
    if (compared === this.lastCompared) return;
    this.lastCompared = compared;
    this.version++;
    this.counts.publishes++;
    this.lastJson = json;
    this.emit('fleet', this.json());
  }

  private emit(event: 'fleet' | 'journal', json: string): void {
    for (const l of this.listeners) l(event, json);
  }
}
