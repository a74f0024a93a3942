import { EXIT } from '../../core/errors.js';
import { formatResource } from '../../core/resource.js';
import type { CommandSpec } from '../command.js';
import { str } from '../command.js';
import { printJson } from '../output.js';

export const command: CommandSpec = {
  name: 'end',
  summary: 'End a session (default: $LANES_SESSION) and release all its claims in one step.',
  usage: 'end [SESSION] [--reason R] [--json]',
  options: { reason: { type: 'string', arg: 'R', help: 'why it ended (shown in lanes ls --all)' } },
  maxPositionals: 1,
  async run(args, io) {
    const lanes = await io.lanes();
    const id = args.positionals[0] ?? (await lanes.sessions.current()).id;
    const result = await lanes.sessions.end(id, str(args.values['reason']) ?? 'ended by lanes end');
    if (io.json) printJson(io.stdout, result);
    else if (result.alreadyEnded) io.stdout(`session ${id} had already ended (${result.session.endReason ?? 'no reason'})\n`);
    else io.stdout(`ended session ${id}${result.released.length ? `; released ${result.released.map(formatResource).join(', ')}` : ''}\n`);
    return EXIT.ok;
  },
};
