import { EXIT } from '../../core/errors.js';
import { formatAge } from '../../core/duration.js';
import { formatResource } from '../../core/resource.js';
import type { CommandSpec } from '../command.js';
import { ACT_AS } from '../command.js';
import { printJson, stateColor } from '../output.js';

export const command: CommandSpec = {
  name: 'whoami',
  summary: 'Show the session this shell acts as, and how it was found (a clear error when there is none).',
  description: [
    'The acting session: $LANES_SESSION (unless the agent running this shell has a session of its own nearer),',
    "else the live session owned by the nearest process above this one (in an agent's shell: the agent's",
    'session, registered by its hooks), else the session the agent names in its environment (CODEX_SESSION_ID, …).',
    'Every lanes command, the git guard and the MCP server find it by the same rule.',
  ].join('\n'),
  usage: 'whoami [--session S] [--json]',
  options: { session: ACT_AS },
  maxPositionals: 0,
  async run(_args, io) {
    const lanes = await io.lanes();
    const s = await lanes.sessions.current();
    if (io.json) {
      printJson(io.stdout, { ...s, foundBy: lanes.sessionHow });
      return EXIT.ok;
    }
    const now = await lanes.now();
    const lines = [
      `session  ${s.id} (${stateColor(s.state)}${s.why ? `: ${s.why}` : ''})`,
      lanes.sessionHow && `found by ${lanes.sessionHow}`,
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
