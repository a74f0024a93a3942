import { EXIT } from '../../core/errors.js';
import type { CommandSpec } from '../command.js';
import { str } from '../command.js';
import { printJson } from '../output.js';

export const command: CommandSpec = {
  name: 'restore',
  summary:
    'Restore a snapshot into a new worktree (default) or into a new or empty directory; never over existing work.',
  usage: 'restore SNAPSHOT [--into DIR] [--json]',
  description:
    "SNAPSHOT is SESSION/N (see lanes snapshots) or a full ref. The new worktree is on a new branch\nlanes/restore-<session>-<n> at the snapshot's parent, with the saved work uncommitted on top.",
  options: { into: { type: 'string', arg: 'DIR', help: "write the snapshot's files into DIR (new or empty) instead" } },
  minPositionals: 1,
  maxPositionals: 1,
  async run(args, io) {
    const lanes = await io.lanes();
    const r = await lanes.snapshots.restore(args.positionals[0] ?? '', str(args.values['into']));
    if (io.json) printJson(io.stdout, r);
    else io.stdout(`restored ${r.snapshot.ref} into ${r.path}${r.branch ? ` (branch ${r.branch})` : ''}\n`);
    return EXIT.ok;
  },
};
