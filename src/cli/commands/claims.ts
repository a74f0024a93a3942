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
    const waits = await lanes.claims.waits();
    if (io.json) {
      // Each claim with the sessions waiting for it (the array's shape is unchanged otherwise).
      printJson(
        io.stdout,
        claims.map((c) => ({
          ...c,
          waiters: waits
            .filter((w) =>
              w.heldBy.some(
                (h) =>
                  h.claim.scope === c.claim.scope && h.claim.kind === c.claim.kind && h.claim.name === c.claim.name,
              ),
            )
            .map((w) => ({
              session: w.wait.sessionId,
              since: w.wait.since,
              live: w.live,
              waitsFor: w.wait.resources.map(formatResource),
            })),
        })),
      );
      return EXIT.ok;
    }
    if (claims.length === 0 && waits.length === 0) {
      io.stdout('no claims\n');
      return EXIT.ok;
    }
    const now = await lanes.now();
    if (waits.length > 0)
      io.stdout(
        table(
          ['WAITING SESSION', 'WAITS FOR', 'HELD BY', 'SINCE', 'STATE'],
          waits.map((w) => [
            w.wait.sessionId,
            w.wait.resources.map(formatResource).join(' '),
            [...new Set(w.heldBy.map((h) => h.claim.sessionId))].join(' ') || '(free now)',
            formatAge(now - w.wait.since),
            w.live ? stateColor('live') : stateColor('dead'),
          ]),
          // What it waits for and who holds it, wrapped: the point of the table.
          { keep: ['WAITING SESSION'], drop: ['SINCE'], wrap: { 'WAITS FOR': 3, 'HELD BY': 3 } },
        ) + '\n',
      );
    if (claims.length === 0) return EXIT.ok;
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
        // The resource is what a person releases or waits for: wrapped, never cut.
        { keep: ['SESSION'], drop: ['SCOPE', 'SINCE', 'TICKET'], wrap: { RESOURCE: 3 } },
      ),
    );
    return EXIT.ok;
  },
};
