import { EXIT } from '../../core/errors.js';
import type { CommandSpec } from '../command.js';
import { str } from '../command.js';
import { printJson } from '../output.js';
import { describeSnapshot } from '../../index.js';

export const command: CommandSpec = {
  name: 'snapshot',
  summary: "Save a session's whole uncommitted state as a private commit under refs/lanes/snapshots/<session>/<n>.",
  usage: 'snapshot [--session S] [--json]',
  description:
    'Tracked changes, deletions and untracked files that are not ignored, on top of HEAD. The index, the files\nand every branch are left as they are. No new ref when nothing changed since the last snapshot.',
  options: {
    session: { type: 'string', arg: 'S', help: 'the session (default $LANES_SESSION); any session, live or not' },
  },
  maxPositionals: 0,
  async run(args, io) {
    const lanes = await io.lanes();
    const session = str(args.values['session']);
    const r = await lanes.snapshots.snapshot(session ? { session } : {});
    if (io.json) printJson(io.stdout, r);
    else io.stdout(`${describeSnapshot(r)}\n`);
    return EXIT.ok;
  },
};
