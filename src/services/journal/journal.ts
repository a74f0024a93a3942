import { LanesError } from '../../core/errors.js';
import type { FollowCursor, JournalEntry, JournalInput, JournalQuery } from '../../store/journal-types.js';
import { expandKinds } from '../../store/shared/journal-entries.js';
import type { LanesContext } from '../context.js';
import { OutageWatch } from '../outage.js';

/** How often a follower asks for new entries: well inside the 0.5 s it promises. */
const FOLLOW_POLL_MS = 150;
const PRUNE_BATCH = 500;

/**
 * The decision journal as services use it. The store journals its own decisions (sessions, claims,
 * waits) in their transactions; a service records the decisions it makes outside the store (a hook
 * denying an edit, a commit, a land) right after making them.
 */
export class JournalService {
  constructor(private readonly ctx: LanesContext) {}

  /**
   * Records decisions already made. Best effort: a journal write that fails (a full disk, a locked
   * store) must not undo or fail the decision it describes (a hook deny stays a deny).
   */
  async record(entries: JournalInput | JournalInput[]): Promise<void> {
    try {
      await this.ctx.store.appendJournal(Array.isArray(entries) ? entries : [entries]);
    } catch {
      // the decision stands; only its record is missing
    }
  }

  /**
   * Records a finding only when it differs from the last one of its kind about the same subject
   * and repository: a dashboard that asks every 10 s must not write the same fact 2,900 times a night.
   */
  async recordChange(entry: JournalInput): Promise<boolean> {
    const recent = await this.list({
      kinds: [entry.kind],
      ...(entry.repo ? { repo: entry.repo } : {}),
      order: 'desc',
      limit: 20,
    }).catch(() => []);
    const last = recent.find((e) => e.subject === entry.subject);
    if (last && JSON.stringify(last.details) === JSON.stringify(entry.details ?? {})) return false;
    await this.record(entry);
    return true;
  }

  list(query: JournalQuery = {}): Promise<JournalEntry[]> {
    return this.ctx.store.readJournal(checked(query));
  }

  /**
   * Polls by sequence number (the truth on both stores), through the store's followJournal, which
   * waits out numbers still being committed on PostgreSQL: a follower that resumes after the last
   * number it saw misses and repeats nothing. Without afterSeq it starts at the newest entry now.
   */
  async follow(
    query: JournalQuery,
    onEntries: (entries: JournalEntry[]) => void | Promise<void>,
    options: { signal: AbortSignal; pollMs?: number },
  ): Promise<void> {
    const q = checked(query);
    // An outage of any length is waited out (outage.ts): the follower resumes at its cursor.
    const outage = new OutageWatch(this.ctx.notice, 'lanes log --follow');
    const start = q.afterSeq ?? (await outage.run(() => this.ctx.store.lastJournalSeq(), options.signal));
    if (start === null) return;
    let cursor: FollowCursor = { afterSeq: start };
    const pollMs = options.pollMs ?? FOLLOW_POLL_MS;
    while (!options.signal.aborted) {
      const before = cursor.afterSeq;
      const at = cursor;
      const next = await outage.run(() => this.ctx.store.followJournal(q, at), options.signal);
      if (next === null) return;
      cursor = next.cursor;
      if (next.entries.length > 0) await onEntries(next.entries);
      // A full read (1000 entries behind) goes on at once; otherwise wait for new ones.
      if (cursor.afterSeq - before >= 1000) continue;
      await sleep(pollMs, options.signal);
    }
  }

  /** Deletes entries older than the retention, a batch at a time (each a short transaction). */
  async prune(retentionMs: number, maxBatches = Infinity): Promise<number> {
    const before = (await this.ctx.store.now()) - retentionMs;
    // Nothing due (the usual case): one indexed read, no write lock taken.
    const [oldest] = await this.ctx.store.readJournal({ order: 'asc', limit: 1 });
    if (!oldest || oldest.at >= before) return 0;
    let total = 0;
    for (let i = 0; i < maxBatches; i++) {
      const n = await this.ctx.store.pruneJournal(before, PRUNE_BATCH);
      total += n;
      if (n < PRUNE_BATCH) break;
    }
    return total;
  }
}

function checked(query: JournalQuery): JournalQuery {
  if (query.kinds) {
    const { unknown } = expandKinds(query.kinds);
    if (unknown.length)
      throw new LanesError('E_USAGE', `unknown journal kind ${JSON.stringify(unknown[0])}`, {
        hint: 'kinds are areas such as session, claim, hook, gate, or exact kinds such as claim.grant, hook.deny, land (see lanes log --help)',
      });
  }
  if (query.limit !== undefined && !(Number.isInteger(query.limit) && query.limit > 0 && query.limit <= 100_000))
    throw new LanesError('E_USAGE', `limit ${query.limit} is not a whole number from 1 to 100000`);
  return query;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
