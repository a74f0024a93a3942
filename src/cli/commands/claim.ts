import { EXIT } from '../../core/errors.js';
import { formatAge, parseDuration } from '../../core/duration.js';
import { formatResource } from '../../core/resource.js';
import type { CommandSpec } from '../command.js';
import { str, usageError } from '../command.js';
import { printJson } from '../output.js';

export const command: CommandSpec = {
  name: 'claim',
  summary: 'Claim resources for this session, all or none. Prints one fencing token per resource.',
  usage: 'claim RESOURCE… [--wait[=DURATION]] [--scope repo] [--session S] [--json]',
  description: [
    'RESOURCE is kind:name: ticket:SEAT-42, path:src/billing/ (a trailing / is a directory, which covers',
    'everything under it), branch:NAME, file:/abs/path or file:~/… (a fixed file of this machine, such as',
    '~/.npmrc: agents edit it only under your claim), or any kind:name. ticket, path and branch are scoped',
    'to the repository, other kinds to this machine (--scope repo: to the repository).',
    'A claim held by a live session fails with exit 3 naming the holder; one held by a dead or ended',
    'session is taken over with a higher token. --wait waits for the holder (Ctrl-C to stop; with a',
    'DURATION such as 30s, exit 5 when it runs out).',
  ].join('\n'),
  options: {
    wait: {
      type: 'string',
      optionalValue: true,
      arg: '[=DURATION]',
      help: 'wait for held resources (optionally at most DURATION)',
    },
    scope: { type: 'string', arg: 'repo', help: 'scope machine-wide kinds to the repository' },
    session: { type: 'string', arg: 'S', help: 'act as session S instead of $LANES_SESSION' },
  },
  minPositionals: 1,
  examples: ['lanes claim ticket:SEAT-42 path:src/billing/', 'lanes claim --wait=2m branch:release'],
  async run(args, io) {
    const scope = str(args.values['scope']);
    if (scope !== undefined && scope !== 'repo')
      throw usageError(this, `--scope takes only "repo", got ${JSON.stringify(scope)}`);
    const wait = str(args.values['wait']);
    const timeoutMs = wait ? parseDuration(wait, '--wait') : undefined;
    const lanes = await io.lanes();
    const session = str(args.values['session']);
    const grants = await lanes.claims.claim(args.positionals, {
      wait: wait !== undefined,
      signal: io.signal,
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      ...(scope ? { scope: 'repo' as const } : {}),
      ...(session ? { session } : {}),
    });
    if (io.json) {
      printJson(io.stdout, grants);
      return EXIT.ok;
    }
    const now = await lanes.now();
    for (const g of grants) {
      io.stdout(`claimed ${formatResource(g.ref)} (token ${g.token})\n`);
      if (g.takenOver) {
        const s = g.takenOver.session;
        io.stdout(
          `  took over ${formatResource(g.takenOver.claim)} from session ${g.takenOver.claim.sessionId}: ${g.takenOver.why}` +
            (s
              ? `; last seen ${formatAge(now - s.lastSeenAt)} ago${s.worktree ? `, worktree ${s.worktree}` : ''}${s.ticket ? `, ticket ${s.ticket}` : ''}`
              : '') +
            '\n',
        );
      }
    }
    return EXIT.ok;
  },
};
