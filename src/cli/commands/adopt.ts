import { EXIT } from '../../core/errors.js';
import { formatResource } from '../../core/resource.js';
import type { CommandSpec } from '../command.js';
import { ACT_AS } from '../command.js';
import { printJson } from '../output.js';

export const command: CommandSpec = {
  name: 'adopt',
  summary:
    "Take over a dead or ended session's work: its claims and ticket (with new fencing tokens) and its worktree.",
  usage: 'adopt SESSION [--session S] [--json]',
  description:
    'A live session is never adopted (exit 3). Afterwards this session works in the adopted worktree and\nmay `lanes land` it.',
  options: { session: ACT_AS },
  minPositionals: 1,
  maxPositionals: 1,
  async run(args, io) {
    const lanes = await io.lanes();
    const r = await lanes.adopt(args.positionals[0] ?? '');
    if (io.json) printJson(io.stdout, r);
    else {
      for (const g of r.grants) io.stdout(`claimed ${formatResource(g.ref)} (token ${g.token})\n`);
      if (r.worktree) io.stdout(`now working in ${r.worktree} (cd there)\n`);
    }
    return EXIT.ok;
  },
};
