import { EXIT } from '../../core/errors.js';
import { formatAge } from '../../core/duration.js';
import { formatResource } from '../../core/resource.js';
import type { CommandSpec } from '../command.js';
import { printJson, stateColor } from '../output.js';

export const command: CommandSpec = {
  name: 'whoami',
  summary: 'Show the session named by $LANES_SESSION (a clear error when it is unset, unknown or ended).',
  usage: 'whoami [--json]',
  options: {},
  maxPositionals: 0,
  async run(_args, io) {
    const lanes = await io.lanes();
    const s = await lanes.sessions.current();
    if (io.json) {
      printJson(io.stdout, s);
      return EXIT.ok;
    }
    const now = await lanes.now();
    const lines = [
      `session  ${s.id} (${stateColor(s.state)}${s.why ? `: ${s.why}` : ''})`,
      s.label && `label    ${s.label}`,
      s.agent && `agent    ${s.agent}`,
      s.ticket && `ticket   ${s.ticket}`,
      `owner    pid ${s.owner.pid} on ${s.owner.host}`,
      `started  ${formatAge(now - s.createdAt)} ago in ${s.cwd}`,
      s.worktree && `worktree ${s.worktree}`,
      `claims   ${s.claims.length ? s.claims.map((c) => `${formatResource(c)} (token ${c.token})`).join(', ') : 'none'}`,
    ];
    io.stdout(lines.filter(Boolean).join('\n') + '\n');
    return EXIT.ok;
  },
};
