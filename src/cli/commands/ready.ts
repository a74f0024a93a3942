import { EXIT } from '../../core/errors.js';
import type { CommandSpec } from '../command.js';
import { printJson } from '../output.js';

export const command: CommandSpec = {
  name: 'ready',
  summary: 'Mark a session ready to land: `lanes land --queue` lands the ready sessions one at a time, in order.',
  usage: 'ready [SESSION] [--undo] [--force] [--into BRANCH] [--json]',
  description: [
    'SESSION (its id, label, ticket or tmux name; default: the session this shell or agent acts as) goes to the',
    "end of the repository's landing queue with its branch as it is now. It needs a ticket (lanes lands only",
    'under a ticket claim) and work its target does not have yet. Marking a session already in line changes',
    'nothing. An agent marks its own session; a person any; an agent another live session only with --force.',
    '`lanes queue` shows the line; `lanes land --queue` brings each onto the target, runs [land] check and',
    'lands it, or stops it (a conflict, a failed check) and goes on. Every mark is journaled (land.ready).',
  ].join('\n'),
  options: {
    undo: { type: 'boolean', help: 'take the session out of the queue' },
    force: { type: 'boolean', help: 'mark another live session from a session of its own' },
    into: { type: 'string', arg: 'BRANCH', help: 'the target it must have work for (default: the main branch)' },
  },
  maxPositionals: 1,
  examples: ['lanes ready', 'lanes ready SHOP-12', 'lanes ready cart --undo'],
  async run(args, io) {
    const lanes = await io.lanes();
    const into = typeof args.values['into'] === 'string' ? args.values['into'] : undefined;
    const r = await lanes.queue.ready(args.positionals[0] ?? null, {
      ...(args.values['undo'] === true ? { undo: true } : {}),
      ...(args.values['force'] === true ? { force: true } : {}),
      ...(into ? { into } : {}),
    });
    if (io.json) printJson(io.stdout, r);
    else if (r.position === null) io.stdout(`${r.session} left the landing queue\n`);
    else
      io.stdout(
        `${r.session}${r.ticket ? ` (${r.ticket})` : ''} ${r.already ? 'was already' : 'is'} ready to land: ${r.branch} at ${r.tip.slice(0, 10)}, ${ordinal(r.position)} in line (lanes land --queue)\n`,
      );
    return EXIT.ok;
  },
};

function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}
