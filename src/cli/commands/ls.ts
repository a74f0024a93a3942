import { EXIT } from '../../core/errors.js';
import { formatAge } from '../../core/duration.js';
import { formatResource } from '../../core/resource.js';
import type { CommandSpec } from '../command.js';
import { printJson, stateColor, table } from '../output.js';

export const command: CommandSpec = {
  name: 'ls',
  summary: 'List sessions: live, dead (its owner is gone but it never ended) or ended (with --all).',
  usage: 'ls [--all] [--json]',
  options: { all: { type: 'boolean', short: 'a', help: 'include ended sessions' } },
  maxPositionals: 0,
  async run(args, io) {
    const lanes = await io.lanes();
    const sessions = await lanes.sessions.list({ all: args.values['all'] === true });
    if (io.json) {
      printJson(io.stdout, sessions);
      return EXIT.ok;
    }
    if (sessions.length === 0) {
      io.stdout(args.values['all'] ? 'no sessions\n' : 'no sessions (ended ones: lanes ls --all)\n');
      return EXIT.ok;
    }
    const now = await lanes.now();
    io.stdout(
      table(
        ['SESSION', 'STATE', 'AGE', 'AGENT', 'TICKET', 'LABEL', 'PID', 'WORKTREE', 'CLAIMS'],
        sessions.map((s) => [
          s.id + (s.id === lanes.sessionId ? ' *' : ''),
          stateColor(s.state),
          formatAge(now - s.createdAt),
          s.agent,
          s.ticket,
          s.label,
          `${s.owner.pid}@${s.owner.host}`,
          s.worktree ?? s.cwd,
          s.claims.length ? s.claims.map(formatResource).join(' ') : '',
        ]),
      ),
    );
    return EXIT.ok;
  },
};
