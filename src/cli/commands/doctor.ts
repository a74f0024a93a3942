import { EXIT } from '../../core/errors.js';
import type { CommandSpec } from '../command.js';
import { pc, printJson } from '../output.js';
import { recordWidth, wrap } from '../layout.js';
import { hookLanesCommand } from '../lanes-command.js';

export const command: CommandSpec = {
  name: 'doctor',
  summary: 'Check sessions, worktrees, claims and the guard of this repository; --fix repairs what is safe to repair.',
  usage: 'doctor [--fix] [--json]',
  description: [
    'Every finding has a severity. Errors: sessions whose owner died without ending, claims they hold, worktrees',
    'that are gone, a land or lanes commit a kill left half-done, a git index.lock a killed lanes process left.',
    'Warnings: uncommitted work of a worktree nobody works in that no snapshot holds, live sessions sharing one',
    'worktree (and its index), sessions on one ticket not joined with --join, the guard not installed. Information: kept worktrees of ended sessions (clean, or their work saved by lanes end),',
    'sessions joined on one ticket.',
    "--fix ends dead sessions after snapshotting their dirty work (taking each session's gate, with the wait",
    'notice when it has to wait), which releases their claims; snapshots unsaved work of unattended worktrees;',
    'prunes vanished worktrees; finishes interrupted lands and commits; takes back orphaned index locks;',
    'installs the guard; and says for each finding it leaves why it cannot. It never',
    'deletes work. Exit 0 when no error or warning remains (information never fails it), 3 otherwise.',
  ].join('\n'),
  options: { fix: { type: 'boolean', help: 'repair what is safe to repair' } },
  maxPositionals: 0,
  async run(args, io) {
    const lanes = await io.lanes();
    const fix = args.values['fix'] === true;
    const report = await lanes.doctor(fix ? { fix, lanesCommand: hookLanesCommand() } : { fix });
    if (io.json) printJson(io.stdout, report);
    else {
      // A finding is a message, not a table row: wrapped at a terminal, whole in a pipe (layout.ts recordWidth).
      const width = recordWidth(process.stdout);
      const say = (line: string, indent = '    ') =>
        io.stdout(`${width === null ? line : wrap(line, width, indent)}\n`);
      for (const f of report.findings) {
        const tag = f.fixed
          ? pc.green('fixed')
          : f.severity === 'error'
            ? pc.red('error')
            : f.severity === 'warning'
              ? pc.yellow('warning')
              : pc.dim('info');
        say(`${tag}  ${f.kind}: ${f.message}${f.fixed ? ` -> ${f.fixed}` : ''}`);
        if (f.unfixable) say(`       not fixed: ${f.unfixable}`, '');
      }
      if (report.open === 0) io.stdout(report.findings.length ? 'healthy (information only)\n' : 'all healthy\n');
    }
    return report.open === 0 ? EXIT.ok : EXIT.held;
  },
};
