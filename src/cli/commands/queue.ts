import { EXIT } from '../../core/errors.js';
import type { CommandSpec } from '../command.js';
import { Table } from '../output.js';
import { printJson } from '../output.js';
import { formatAge } from '../../core/duration.js';

export const command: CommandSpec = {
  name: 'queue',
  summary: 'Show the landing queue: the sessions ready to land, in order, and those the queue stopped.',
  usage: 'queue [--json]',
  description: [
    "The repository's line of sessions marked ready (lanes ready), in the order they became ready: the order",
    '`lanes land --queue` lands them in. Under it, the sessions the queue stopped since they were last marked',
    'ready (a conflict with the target, a failed [land] check, uncommitted changes) with why: mark one ready',
    'again once it is fixed.',
  ].join('\n'),
  options: {},
  maxPositionals: 0,
  async run(_args, io) {
    const lanes = await io.lanes({ session: null });
    const q = await lanes.queue.list();
    if (io.json) {
      printJson(io.stdout, q);
      return EXIT.ok;
    }
    const now = await lanes.now();
    if (q.ready.length === 0) io.stdout('no session is ready to land (lanes ready marks one)\n');
    else
      io.stdout(
        new Table(
          ['#', 'SESSION', 'TICKET', 'BRANCH', 'TIP', 'READY'],
          q.ready.map((r, i) => [
            i + 1,
            r.session,
            r.ticket,
            r.branch,
            r.tip.slice(0, 10),
            `${formatAge(now - r.readyAt)} ago`,
          ]),
        ).toString(),
      );
    if (q.stopped.length > 0) {
      io.stdout('\nstopped by the queue (lanes ready marks one again once fixed):\n');
      for (const s of q.stopped)
        io.stdout(`  ${s.session}${s.ticket ? ` (${s.ticket})` : ''}: ${s.reason}: ${s.why.split('\n')[0]}\n`);
    }
    return EXIT.ok;
  },
};
