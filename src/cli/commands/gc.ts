import { EXIT } from '../../core/errors.js';
import type { CommandSpec } from '../command.js';
import { str, usageError } from '../command.js';
import { pc, printJson } from '../output.js';

export const command: CommandSpec = {
  name: 'gc',
  summary: "End this host's dead sessions: snapshot their unsaved work, then end them and release their claims.",
  usage: 'gc [--dry-run] [--limit N] [--json]',
  description: [
    'A session is dead when its owner process is gone (or, on a team store, its lease lapsed) but it',
    'never ended: an agent killed, crashed or closed without its session-end hook. Each dead session of',
    'this host is ended through the same path as `lanes end`: its uncommitted work is saved in a',
    'snapshot first (refs/lanes/snapshots/…), then it ends and releases its claims in one step. A',
    'session re-attached meanwhile is left open. Worktrees and branches are never removed.',
    'Ordinary commands also reap a few sessions dead for over an hour ($LANES_GC_AFTER_MS, `off` to disable).',
    'Exit 0 when every dead session was reaped (or, with --dry-run, always), 1 when one failed.',
  ].join('\n'),
  options: {
    'dry-run': { type: 'boolean', help: 'only list what would be reaped' },
    limit: { type: 'string', arg: 'N', help: 'reap at most N sessions (default: all)' },
  },
  maxPositionals: 0,
  examples: ['lanes gc --dry-run', 'lanes gc --limit 100 --json'],
  async run(args, io) {
    const limitText = str(args.values['limit']);
    if (limitText !== undefined && !/^[1-9]\d*$/.test(limitText))
      throw usageError(this, `--limit must be a positive whole number, got ${JSON.stringify(limitText)}`);
    const lanes = await io.lanes();
    const report = await lanes.gc({
      dryRun: args.values['dry-run'] === true,
      ...(limitText ? { limit: Number(limitText) } : {}),
    });
    const failed = report.items.filter((i) => i.outcome === 'failed');
    if (io.json) printJson(io.stdout, report);
    else {
      for (const i of report.items) {
        const claims = i.claims.length ? `, ${i.claims.length} claim(s)` : '';
        const saved = i.snapshot ? `, work saved in ${i.snapshot}` : '';
        const label =
          i.outcome === 'reaped'
            ? pc.green('reaped')
            : i.outcome === 'failed'
              ? pc.red('failed')
              : i.outcome === 'changed'
                ? pc.yellow('left open')
                : pc.yellow('would reap');
        io.stdout(
          `${label}  ${i.session} (${i.why})${claims}${saved}${i.outcome === 'changed' ? ': it came back since it was judged' : ''}${i.error ? `: ${i.error}` : ''}\n`,
        );
      }
      if (report.items.length === 0) io.stdout('no dead sessions on this host\n');
      if (report.remaining > 0) io.stdout(`${report.remaining} more dead session(s) left (over --limit)\n`);
    }
    return failed.length > 0 && !report.dryRun ? EXIT.error : EXIT.ok;
  },
};
