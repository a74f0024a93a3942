import { EXIT } from '../../core/errors.js';
import type { CommandSpec } from '../command.js';
import { pc, printJson } from '../output.js';

export const command: CommandSpec = {
  name: 'doctor',
  summary: 'Check sessions, worktrees, claims and the guard of this repository; --fix repairs what is safe to repair.',
  usage: 'doctor [--fix] [--json]',
  description: [
    'Reports: sessions whose owner died without ending; worktrees without a session (and their dirty state);',
    'sessions whose worktree is gone; claims held by dead sessions; live sessions sharing one worktree;',
    'sessions on the same ticket; the guard not installed.',
    "--fix ends dead sessions after snapshotting their dirty work (taking each session's gate, with the wait",
    'notice when it has to wait), which releases their claims, and prunes vanished worktrees. It never',
    'deletes unsaved work. Exit 0 when nothing remains to report, 3 otherwise.',
  ].join('\n'),
  options: { fix: { type: 'boolean', help: 'repair what is safe to repair' } },
  maxPositionals: 0,
  async run(args, io) {
    const lanes = await io.lanes();
    const report = await lanes.doctor({ fix: args.values['fix'] === true });
    const open = report.findings.filter((f) => !f.fixed);
    if (io.json) printJson(io.stdout, report);
    else {
      for (const f of report.findings)
        io.stdout(
          `${f.fixed ? pc.green('fixed') : pc.yellow(f.kind)}  ${f.message}${f.fixed ? ` -> ${f.fixed}` : ''}\n`,
        );
      if (report.findings.length === 0) io.stdout('all healthy\n');
    }
    return open.length === 0 ? EXIT.ok : EXIT.held;
  },
};
