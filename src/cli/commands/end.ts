import { EXIT } from '../../core/errors.js';
import { formatResource } from '../../core/resource.js';
import type { CommandSpec } from '../command.js';
import { str } from '../command.js';
import { printJson } from '../output.js';
import { blockedTeardownText } from '../teardown-text.js';

export const command: CommandSpec = {
  name: 'end',
  summary:
    'End a session (default: $LANES_SESSION): snapshot its uncommitted work, then release all its claims in one step.',
  usage: 'end [SESSION] [--reason R] [--remove-worktree] [--force] [--skip-snapshot] [--json]',
  description: [
    "--remove-worktree removes the session's worktree only when it is clean or its state is saved in the",
    'snapshot just taken, and its branch only when merged into the main branch (or with --force).',
    'A nested git repository or changes inside a submodule cannot be snapshotted: they are named and stay',
    'in the worktree. When the snapshot fails the session is not ended (exit 1, E_SNAPSHOT, the reason named);',
    '--skip-snapshot ends it without one (the files stay in the worktree, in no ref).',
    'SESSION: its id, label, ticket or tmux name. A live session whose owner is not this shell (nor a process',
    'above it) is refused (exit 3, E_NOT_YOURS) naming its owner: `lanes stop` asks an agent lanes started to',
    'exit first; --force ends it anyway, journaled as forced (a live session of another host: its work unsaved).',
  ].join('\n'),
  options: {
    reason: { type: 'string', arg: 'R', help: 'why it ended (shown in lanes ls --all)' },
    'remove-worktree': { type: 'boolean', help: "also remove the session's worktree (never unsaved work)" },
    force: {
      type: 'boolean',
      help: 'end it though it is live and not yours (journaled); with --remove-worktree, also an unmerged branch',
    },
    'skip-snapshot': { type: 'boolean', help: 'end without snapshotting (when the snapshot cannot be taken)' },
  },
  maxPositionals: 1,
  async run(args, io) {
    const lanes = await io.lanes();
    const id = args.positionals[0] ?? (await lanes.sessions.current()).id;
    const result = await lanes.sessions.end(id, {
      reason: str(args.values['reason']) ?? 'ended by lanes end',
      removeWorktree: args.values['remove-worktree'] === true,
      force: args.values['force'] === true,
      forceLive: args.values['force'] === true,
      by: 'lanes end',
      skipSnapshot: args.values['skip-snapshot'] === true,
    });
    if (io.json) {
      printJson(io.stdout, result);
      return EXIT.ok;
    }
    if (result.snapshot) io.stdout(`saved uncommitted work as ${result.snapshot.ref}\n`);
    if (result.alreadyEnded)
      io.stdout(`session ${id} had already ended (${result.session.endReason ?? 'no reason'})\n`);
    else
      io.stdout(
        `ended session ${id}${result.released.length ? `; released ${result.released.map(formatResource).join(', ')}` : ''}\n`,
      );
    if (result.worktreeRemoved) io.stdout(`removed worktree ${result.session.worktree}\n`);
    if (result.branchDeleted) io.stdout(`deleted branch ${result.branchDeleted}\n`);
    for (const n of result.notes) io.stdout(`note: ${n}\n`);
    if (result.teardown?.blocked) {
      // Never skipped silently: the session ended, and what its teardown would run is named.
      io.stderr(blockedTeardownText(result.session.id, result.teardown.why));
      return EXIT.untrusted;
    }
    if (result.teardown && !result.teardown.ok)
      io.stderr(
        `lanes: warning: [session] teardown failed: ${result.teardown.why ?? 'failed'}; run it again with \`lanes teardown ${result.session.id}\`\n`,
      );
    return EXIT.ok;
  },
};
