import { EXIT } from '../../core/errors.js';
import type { CommandSpec } from '../command.js';
import { pc, printJson, table } from '../output.js';
import { terminalWidth, wrap } from '../layout.js';

export const command: CommandSpec = {
  name: 'sweep',
  summary:
    'The safe pre-reboot save: snapshot every dirty worktree of the repository to private refs, publish nothing.',
  usage: 'sweep [--dry-run] [--json]',
  description: [
    'Visits every worktree and every session of the repository: owner, liveness, ticket, dirty or clean.',
    'Dirty work is saved under refs/lanes/snapshots/ only; no branch is committed to, moved or pushed.',
    'Live sessions\' worktrees are "in progress"; those of dead or ended sessions, or without one, are',
    '"abandoned", with the snapshot and the command to adopt it. Two holders of work for one ticket are',
    'flagged (a collision: lanes never picks one), and so is older work for a ticket (a stale copy).',
    'Exit 0 when nothing is flagged, 3 when something is.',
  ].join('\n'),
  options: { 'dry-run': { type: 'boolean', short: 'n', help: 'report only; write no snapshot' } },
  maxPositionals: 0,
  async run(args, io) {
    const lanes = await io.lanes();
    const tty = process.stderr.isTTY && !io.json;
    const report = await lanes.sweep({
      dryRun: args.values['dry-run'] === true,
      ...(tty
        ? {
            onProgress: (done: number, total: number, wt: string) =>
              io.stderr(`\r\x1b[Ksweeping ${done + 1}/${total} ${wt.slice(-60)}`),
          }
        : {}),
    });
    if (tty) io.stderr('\r\x1b[K');
    if (io.json) printJson(io.stdout, report);
    else {
      io.stdout(
        table(
          ['WORKTREE', 'SESSION', 'STATE', 'TICKET', 'DIRTY', 'AHEAD', 'VERDICT', 'SNAPSHOT'],
          report.items.map((i) => [
            i.worktree,
            i.session?.id,
            i.session?.state,
            i.ticket,
            i.dirtyFiles,
            i.ahead,
            i.verdict === 'in-progress'
              ? pc.green(i.verdict)
              : i.verdict === 'abandoned'
                ? pc.yellow(i.verdict)
                : i.verdict,
            i.snapshot
              ? `${i.snapshot.ref}${i.snapshot.created ? '' : ' (unchanged)'}`
              : report.dryRun && i.dirtyFiles
                ? '(dry run)'
                : '',
          ]),
          // The snapshot is what a person adopts: wrapped, never cut; the worktree by its last parts.
          {
            keep: ['SESSION', 'VERDICT'],
            drop: ['AHEAD', 'TICKET', 'STATE'],
            shorten: { WORKTREE: 'path' },
            wrap: { SNAPSHOT: 2 },
          },
        ),
      );
      // Each note and flag whole under the table, wrapped (the command to adopt the work is in it).
      const say = (line: string) => io.stdout(`${wrap(line, terminalWidth(), '  ')}\n`);
      for (const i of report.items)
        if (i.verdict !== 'clean') say(`${i.worktree}: ${i.note}${i.adopt ? `; adopt with: ${i.adopt}` : ''}`);
      for (const f of report.flags) say(`${pc.red(f.kind === 'collision' ? 'COLLISION' : 'STALE COPY')} ${f.message}`);
      io.stdout(
        report.flags.length
          ? `${report.flags.length} flagged; nothing was published\n`
          : 'nothing flagged; nothing was published\n',
      );
    }
    return report.flags.length > 0 ? EXIT.held : EXIT.ok;
  },
};
