import { parseDuration } from '../../core/duration.js';
import { EXIT } from '../../core/errors.js';
import type { CommandSpec, Io, ParsedArgs } from '../command.js';
import { str, usageError } from '../command.js';
import { pc, printJson } from '../output.js';
import { worktreeGcText } from './gc-worktrees-text.js';

export const command: CommandSpec = {
  name: 'gc',
  summary:
    "End this host's dead sessions (work snapshotted, claims released); with --worktrees, remove their worktrees too.",
  usage:
    'gc [--dry-run] [--limit N] [--json]\ngc --worktrees [--dry-run] [--merged] [--older-than D] [--reclaim] [--delete-ignored] [--json]',
  description: [
    'A session is dead when its owner process is gone (or, on a team store, its lease lapsed) but it',
    'never ended: an agent killed, crashed or closed without its session-end hook. Each dead session of',
    'this host is ended through the same path as `lanes end`: its uncommitted work is saved in a',
    'snapshot first (refs/lanes/snapshots/…), then it ends and releases its claims in one step. A',
    'session re-attached meanwhile is left open. Worktrees and branches are never removed.',
    'Ordinary commands also reap a few sessions dead for over an hour ($LANES_GC_AFTER_MS, `off` to disable).',
    '',
    '--worktrees: in this repository, after that, the worktrees lanes made whose sessions ended or died, with',
    'their disk usage, whether their branch is merged, their unsaved files and last activity. Each is removed',
    'with its uncommitted work saved in a snapshot first (checked against the files right before removal);',
    'its branch is deleted when merged into the main branch and kept otherwise. With --reclaim, a worktree',
    'whose work is not merged stays and loses only its rebuildable directories (ignored by git as a whole;',
    '[worktree] reclaim in ~/.config/lanes/config.toml, default node_modules dist build target .next .turbo',
    '.venv). Never touched: a worktree a live session or any process works in, the main worktree, one lanes',
    'did not make, one holding the repository or the home directory, a locked one, one holding another',
    'worktree, one with a rebase or merge half done or with submodules. A detached HEAD no ref holds is kept',
    "under refs/lanes/kept/. Ignored files that are neither rebuildable nor copies of the main worktree's",
    '(.env.local, notes/) keep their worktree unless --delete-ignored.',
    'Exit 0 when everything went (or, with --dry-run, always), 1 when something failed.',
  ].join('\n'),
  options: {
    'dry-run': { type: 'boolean', help: 'only list what would be reaped or removed' },
    limit: { type: 'string', arg: 'N', help: 'reap at most N sessions (default: all; not with --worktrees)' },
    worktrees: { type: 'boolean', help: 'also remove the worktrees lanes made for ended and dead sessions' },
    merged: { type: 'boolean', help: 'with --worktrees: only those whose branch is merged' },
    'older-than': { type: 'string', arg: 'D', help: 'with --worktrees: only those idle for longer than D (7d, 12h)' },
    reclaim: { type: 'boolean', help: 'with --worktrees: unmerged ones keep the worktree, lose only rebuildable dirs' },
    'delete-ignored': {
      type: 'boolean',
      help: 'with --worktrees: also remove worktrees holding ignored files that are not rebuildable (.env.local, notes/)',
    },
  },
  maxPositionals: 0,
  examples: [
    'lanes gc --dry-run',
    'lanes gc --limit 100 --json',
    'lanes gc --worktrees --dry-run',
    'lanes gc --worktrees --merged --older-than 7d',
    'lanes gc --worktrees --reclaim',
  ],
  async run(args, io) {
    if (args.values['worktrees'] === true) return worktrees(this, args, io);
    for (const only of ['merged', 'older-than', 'reclaim', 'delete-ignored'])
      if (args.values[only] !== undefined) throw usageError(this, `--${only} goes with --worktrees`);
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

async function worktrees(spec: CommandSpec, args: ParsedArgs, io: Io): Promise<number> {
  if (args.values['limit'] !== undefined) throw usageError(spec, '--limit does not go with --worktrees');
  const older = str(args.values['older-than']);
  const olderThanMs = older === undefined ? undefined : parseDuration(older, '--older-than');
  const lanes = await io.lanes();
  const report = await lanes.worktrees.gc({
    dryRun: args.values['dry-run'] === true,
    merged: args.values['merged'] === true,
    reclaim: args.values['reclaim'] === true,
    deleteIgnored: args.values['delete-ignored'] === true,
    ...(olderThanMs === undefined ? {} : { olderThanMs }),
  });
  if (io.json) printJson(io.stdout, report);
  else io.stdout(worktreeGcText(report, Date.now(), process.cwd()));
  const failed =
    report.items.some((i) => i.outcome === 'failed') || report.ended.items.some((i) => i.outcome === 'failed');
  return failed && !report.dryRun ? EXIT.error : EXIT.ok;
}
