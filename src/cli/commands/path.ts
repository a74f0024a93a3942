import { EXIT } from '../../core/errors.js';
import type { CommandSpec } from '../command.js';
import { str } from '../command.js';
import { printJson } from '../output.js';

export const command: CommandSpec = {
  name: 'path',
  summary:
    'Print a private per-session path for NAME, for a tool that must write its own file (its directory is created 0700).',
  usage: 'path NAME [--session S] [--json]',
  description:
    'Point a tool that insists on a fixed path (e.g. ~/.tool/meta.json) at $(lanes path meta.json) instead:\ntwo sessions then never share the file.',
  options: { session: { type: 'string', arg: 'S', help: 'the session (default $LANES_SESSION)' } },
  minPositionals: 1,
  maxPositionals: 1,
  examples: ['TOOL_META=$(lanes path meta.json) tool run'],
  async run(args, io) {
    const lanes = await io.lanes();
    const session = str(args.values['session']);
    const path = await lanes.handoffs.path(args.positionals[0] ?? '', session ? { session } : {});
    if (io.json) printJson(io.stdout, { path });
    else io.stdout(path + '\n');
    return EXIT.ok;
  },
};
