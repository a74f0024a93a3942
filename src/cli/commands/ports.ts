import { EXIT } from '../../core/errors.js';
import type { CommandSpec } from '../command.js';
import { printJson, stateColor, table } from '../output.js';

export const command: CommandSpec = {
  name: 'ports',
  summary: 'List leased ports of this machine with their sessions and names.',
  usage: 'ports [--json]',
  options: {},
  maxPositionals: 0,
  async run(_args, io) {
    const lanes = await io.lanes();
    const rows = await lanes.ports.list();
    if (io.json) printJson(io.stdout, rows);
    else if (rows.length === 0) io.stdout('no leased ports\n');
    else
      io.stdout(
        table(
          ['PORT', 'NAME', 'SESSION', 'STATE'],
          rows.map((r) => [r.port, r.name, r.session, stateColor(r.state)]),
          { keep: ['PORT', 'SESSION'], wrap: { NAME: 2 } },
        ),
      );
    return EXIT.ok;
  },
};
