import { EXIT } from '../../core/errors.js';
import { formatAge } from '../../core/duration.js';
import { formatResource } from '../../core/resource.js';
import type { CommandSpec } from '../command.js';
import { printJson } from '../output.js';

export const command: CommandSpec = {
  name: 'check',
  summary: 'Say who holds a resource (or anything overlapping it). Exit 3 when another live session does, else 0.',
  usage: 'check RESOURCE [--scope repo] [--json]',
  options: { scope: { type: 'string', arg: 'repo', help: 'scope machine-wide kinds to the repository' } },
  minPositionals: 1,
  maxPositionals: 1,
  async run(args, io) {
    const lanes = await io.lanes();
    const { ref, holders } = await lanes.claims.check(
      args.positionals[0] ?? '',
      args.values['scope'] === 'repo' ? { scope: 'repo' } : {},
    );
    const blocking = holders.filter((h) => h.state === 'live' && h.claim.sessionId !== lanes.sessionId);
    if (io.json)
      printJson(io.stdout, { resource: formatResource(ref), scope: ref.scope, free: blocking.length === 0, holders });
    else if (holders.length === 0) io.stdout(`${formatResource(ref)} is free\n`);
    else {
      const now = await lanes.now();
      for (const h of holders) {
        const who = h.claim.sessionId === lanes.sessionId ? 'this session' : `session ${h.claim.sessionId}`;
        const note = h.state === 'live' ? '' : ` (${h.state}: ${h.why}; the next claim takes it over)`;
        io.stdout(
          `${formatResource(h.claim)} is held by ${who}${h.session?.ticket ? ` (ticket ${h.session.ticket})` : ''}, pid ${h.session?.owner.pid ?? '?'} on ${h.session?.owner.host ?? '?'}, token ${h.claim.token}, for ${formatAge(now - h.claim.acquiredAt)}${note}\n`,
        );
      }
    }
    return blocking.length > 0 ? EXIT.held : EXIT.ok;
  },
};
