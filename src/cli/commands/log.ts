import { parseDuration } from '../../core/duration.js';
import { EXIT, LanesError } from '../../core/errors.js';
import type { JournalEntry, JournalQuery } from '../../index.js';
import type { CommandSpec } from '../command.js';
import { usageError } from '../command.js';
import { formatEntry } from '../log/format.js';

const DEFAULT_LAST = 50;

export const command: CommandSpec = {
  name: 'log',
  summary: 'The decision journal: sessions, claims, refusals, hook denies, commits, snapshots, lands (oldest first).',
  usage: 'log [--follow] [--since DURATION|SEQ] [--session S] [--ticket T] [--kind K]… [--limit N] [--json]',
  description:
    'Without --since, the last 50 entries. --since 2h shows the entries of the last two hours; --since 1234 those after sequence number 1234 (a follower that stopped resumes from the last number it printed, missing and repeating nothing). --kind takes an area (session, claim, gate, hook, handoff, fence, state, commit, guard, sweep, conflicts, doctor) or an exact kind (claim.grant, hook.deny, land …); repeat it for several. --json writes one JSON object per line.',
  options: {
    follow: { type: 'boolean', short: 'f', help: 'keep printing new entries (within 0.5 s) until Ctrl-C' },
    since: {
      type: 'string',
      arg: 'DURATION|SEQ',
      help: 'entries of the last DURATION (30m, 2h, 7d), or after sequence number SEQ',
    },
    session: { type: 'string', arg: 'S', help: 'only this session' },
    ticket: { type: 'string', arg: 'T', help: 'only sessions of this ticket' },
    kind: { type: 'string', multiple: true, arg: 'K', help: 'only this kind or area (repeatable)' },
    limit: {
      type: 'string',
      arg: 'N',
      help: `at most N entries before following (default ${DEFAULT_LAST} without --since)`,
    },
  },
  maxPositionals: 0,
  examples: [
    'lanes log --since 12h --kind claim --kind hook',
    'lanes log -f --ticket SEAT-42',
    'lanes log --since 1500 --json',
  ],
  async run(args, io) {
    const v = args.values;
    const query: JournalQuery = {};
    if (typeof v['session'] === 'string') query.session = v['session'];
    if (typeof v['ticket'] === 'string') query.ticket = v['ticket'];
    if (Array.isArray(v['kind'])) query.kinds = v['kind'];
    let limit: number | undefined;
    if (typeof v['limit'] === 'string') {
      if (!/^\d{1,6}$/.test(v['limit']) || Number(v['limit']) < 1 || Number(v['limit']) > 100_000)
        throw usageError(command, `--limit ${JSON.stringify(v['limit'])} is not a whole number from 1 to 100000`);
      limit = Number(v['limit']);
    }
    const lanes = await io.lanes();
    const since = typeof v['since'] === 'string' ? v['since'].trim() : undefined;
    if (since !== undefined) {
      if (/^\d+$/.test(since)) query.afterSeq = Number(since);
      else {
        try {
          query.since = (await lanes.now()) - parseDuration(since, '--since');
        } catch (e) {
          throw e instanceof LanesError
            ? usageError(command, `${e.message}; give a duration such as 30m, 2h or 7d, or a sequence number`)
            : e;
        }
      }
    }
    const print = (entries: JournalEntry[]) => {
      for (const e of entries) io.stdout(io.json ? JSON.stringify(e) + '\n' : formatEntry(e));
    };
    if (v['follow'] === true) {
      // Everything comes through the follower, the first page too, from just before it: entries
      // still being committed below the newest (a team store) are then shown, not skipped.
      let afterSeq = query.afterSeq;
      if (afterSeq === undefined) {
        const first =
          query.since !== undefined
            ? await lanes.journal.list({ ...query, limit: 1 })
            : (await lanes.journal.list({ ...query, order: 'desc', limit: limit ?? DEFAULT_LAST })).reverse();
        afterSeq = first.length ? first[0]!.seq - 1 : 0;
      }
      await lanes.journal.follow({ ...query, afterSeq }, print, { signal: io.signal });
      return EXIT.ok;
    }
    const entries =
      since !== undefined
        ? await lanes.journal.list({ ...query, limit: limit ?? 100_000 })
        : (await lanes.journal.list({ ...query, order: 'desc', limit: limit ?? DEFAULT_LAST })).reverse();
    print(entries);
    if (entries.length === 0 && !io.json) io.stderr('no journal entries match\n');
    return EXIT.ok;
  },
};
