import * as z from 'zod';
import { defineTool, plain } from './tool.js';

// The decision journal for a model: what happened recently (claims, refusals, denies, commits, lands).

const MAX_ENTRIES = 200;

export const journal = defineTool({
  name: 'journal',
  title: 'Recent lanes decisions',
  description:
    'The recent decisions of lanes, newest last: sessions started and ended, claims granted, refused, taken over and released, waits and refused deadlocks, edits denied by hooks, commits, snapshots and lands. Use it to see what other sessions did in this repository while you worked, or why something of yours was refused. Filter by kind (an area such as claim, hook, session, or an exact kind such as hook.deny), by ticket, or to your own session with mine.',
  input: {
    kinds: z
      .array(z.string().min(1).max(40))
      .max(20)
      .optional()
      .describe('areas or kinds, e.g. ["claim", "hook.deny"]'),
    ticket: z.string().min(1).max(200).optional().describe('only sessions of this ticket'),
    mine: z.boolean().optional().describe('only your own session'),
    limit: z
      .number()
      .int()
      .min(1)
      .max(MAX_ENTRIES)
      .optional()
      .describe(`at most this many (default 50, at most ${MAX_ENTRIES})`),
  },
  output: { entries: z.array(z.looseObject({ seq: z.number(), kind: z.string(), subject: z.string() })) },
  readOnly: true,
  async run(call, args) {
    const entries = (
      await call.lanes.journal.list({
        order: 'desc',
        limit: args.limit ?? 50,
        ...(args.kinds ? { kinds: args.kinds } : {}),
        ...(args.ticket ? { ticket: args.ticket } : {}),
        ...(args.mine ? { session: call.session } : {}),
      })
    ).reverse();
    const lines = entries.map(
      (e) =>
        `#${e.seq} ${new Date(e.at).toISOString()} ${e.kind} ${e.session ?? '-'}${e.ticket ? ` [${e.ticket}]` : ''}: ${e.subject} ${JSON.stringify(e.details)}`,
    );
    return {
      data: { entries: plain(entries) },
      text: entries.length ? lines.join('\n') : 'no journal entries match',
    };
  },
});
