import { EXIT } from '../../core/errors.js';
import type { CommandSpec } from '../command.js';
import { ACT_AS } from '../command.js';
import { printJson } from '../output.js';

export const command: CommandSpec = {
  name: 'port',
  summary: 'Lease a TCP port to this session for NAME (stable for the session and name), from [ports] range.',
  usage: 'port NAME [--session S] [--json]',
  description:
    'The port is checked free by binding 127.0.0.1 and ::1, and recorded as a machine-wide claim port:N,\nso no two live sessions ever get the same port, even before either binds it. It is released when the\nsession ends, and reusable once the session is found dead.',
  options: { session: ACT_AS },
  minPositionals: 1,
  maxPositionals: 1,
  async run(args, io) {
    const lanes = await io.lanes();
    const name = args.positionals[0] ?? '';
    const port = await lanes.ports.lease(name);
    if (io.json) printJson(io.stdout, { session: lanes.sessionId, name, port });
    else io.stdout(`${port}\n`);
    return EXIT.ok;
  },
};
