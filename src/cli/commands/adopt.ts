import { EXIT } from '../../core/errors.js';
import { formatResource } from '../../core/resource.js';
import type { CommandSpec } from '../command.js';
import { ACT_AS } from '../command.js';
import { printJson } from '../output.js';
import { existsSync } from 'node:fs';
import { callerPid } from '../../core/process-identity.js';

export const command: CommandSpec = {
  name: 'adopt',
  summary:
    "Take over a dead or ended session's work: its claims and ticket (with new fencing tokens) and its worktree.",
  usage: 'adopt SESSION [--session S] [--json]',
  description: [
    'SESSION: its id, label, ticket or tmux name. A live session is never adopted (exit 3). Afterwards the',
    'adopting session works in the adopted worktree (made again from its branch, its last snapshot put back,',
    'when gc removed it) and may `lanes land` it. In a shell with no session of its own, a session owned by',
    'that shell is started for it (as `lanes start` does) and named, with the line that acts as it.',
  ].join('\n'),
  options: { session: ACT_AS },
  minPositionals: 1,
  maxPositionals: 1,
  async run(args, io) {
    const lanes = await io.lanes();
    const victim = await lanes.sessions.get(args.positionals[0]!);
    // No session here (a person's shell): one of this shell's own takes it over.
    const mine = lanes.sessionId
      ? null
      : await lanes.sessions.start({ pid: callerPid(process.ppid), label: `adopted ${victim.label ?? victim.id}` });
    const r = await lanes.adopt(victim.id, mine ? { session: mine.id } : {});
    const made =
      r.worktree && !existsSync(r.worktree)
        ? await lanes.sessions.resumeWorktree(await lanes.sessions.left(victim.id))
        : null;
    if (io.json) printJson(io.stdout, { ...r, session: mine?.id ?? lanes.sessionId, remade: made?.notes ?? [] });
    else {
      for (const g of r.grants) io.stdout(`claimed ${formatResource(g.ref)} (token ${g.token})\n`);
      for (const n of made?.notes ?? []) io.stdout(`${n}\n`);
      if (r.worktree) io.stdout(`now working in ${r.worktree} (cd there)\n`);
      if (mine)
        io.stdout(
          `adopted by session ${mine.id}, owned by this shell: act as it with export LANES_SESSION=${mine.id}\n`,
        );
    }
    return EXIT.ok;
  },
};
