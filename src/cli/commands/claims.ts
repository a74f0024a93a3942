import { EXIT } from '../../core/errors.js';
import { formatAge } from '../../core/duration.js';
import { formatResource } from '../../core/resource.js';
import type { CommandSpec } from '../command.js';
import { printJson, stateColor, table } from '../output.js';

export const command: CommandSpec = {
  name: 'claims',
  summary: 'List claims of this repository and this machine (--all: every claim in the store), with their holders.',
  usage: 'claims [--all] [--json]',
  options: { all: { type: 'boolean', short: 'a', help: 'every claim in the store' } },
  maxPositionals: 0,
  async run(args, io) {
    const lanes = await io.lanes();
    const claims = await lanes.claims.list({ all: args.values['all'] === true });
    if (io.json) {
      printJson(io.stdout, claims);
      return EXIT.ok;
    }
    if (claims.length === 0) {
      io.stdout('no claims\n');
      return EXIT.ok;
    }
    const now = await lanes.now();
    io.stdout(
      table(
        ['RESOURCE', 'TOKEN', 'SESSION', 'STATE', 'TICKET', 'SINCE', 'SCOPE'],
        claims.map((c) => [
          formatResource(c.claim),
          c.claim.token,
          c.claim.sessionId,
          stateColor(c.state),
          c.session?.ticket,
          formatAge(now - c.claim.acquiredAt),
          c.claim.scope,
        ]),
      ),
    );
    return EXIT.ok;
  },
};
