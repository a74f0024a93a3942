import { EXIT } from '../../core/errors.js';
import type { FileStat } from '../../index.js';
import type { CommandSpec } from '../command.js';
import { str } from '../command.js';
import { pc, printJson } from '../output.js';

const stat = (s: FileStat[]) => s.map((f) => `${f.path} (+${f.added} -${f.removed})`).join(', ');

export const command: CommandSpec = {
  name: 'conflicts',
  summary:
    'Predict conflicts early: files two live sessions both changed, textual conflicts, same-ticket sessions, competing fixes on the target.',
  usage: 'conflicts [--against BRANCH] [--json]',
  description:
    "Committed work since each session's base and uncommitted work (through snapshot trees) are compared;\n`git merge-tree` predicts textual conflicts without touching any worktree. Exit 3 when anything is found.",
  options: {
    against: { type: 'string', arg: 'BRANCH', help: "the target branch (default: the repository's main branch)" },
  },
  maxPositionals: 0,
  async run(args, io) {
    const lanes = await io.lanes();
    const against = str(args.values['against']);
    const report = await lanes.conflicts(against ? { against } : {});
    if (io.json) printJson(io.stdout, report);
    else {
      for (const p of report.pairs) {
        io.stdout(
          `${pc.yellow('both changed')} ${p.both.join(', ')}: ${p.a} and ${p.b}${p.conflicts.length ? `; ${pc.red('textual conflicts')} in ${p.conflicts.join(', ')}` : ''}\n`,
        );
        io.stdout(`  ${p.a}: ${stat(p.aStat)}\n  ${p.b}: ${stat(p.bStat)}\n`);
      }
      for (const t of report.sameTicket)
        io.stdout(`${pc.yellow('same ticket')} ${t.ticket}: ${t.sessions.join(', ')}\n`);
      for (const c of report.competing)
        io.stdout(`${pc.red('competing fix landed')} on ${c.target} for ${c.session}: ${stat(c.targetStat)}\n`);
      if (!report.found) io.stdout(`no conflicts predicted (against ${report.target})\n`);
    }
    return report.found ? EXIT.held : EXIT.ok;
  },
};
