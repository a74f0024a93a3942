import { EXIT } from '../../core/errors.js';
import { formatAge } from '../../core/duration.js';
import type { CommandSpec } from '../command.js';
import { str } from '../command.js';
import { printJson, table } from '../output.js';

export const command: CommandSpec = {
  name: 'snapshots',
  summary: 'List snapshots of this repository (of one session with --session).',
  usage: 'snapshots [--session S] [--json]',
  options: { session: { type: 'string', arg: 'S', help: "only this session's snapshots" } },
  maxPositionals: 0,
  async run(args, io) {
    const lanes = await io.lanes();
    const list = await lanes.snapshots.list(str(args.values['session']));
    if (io.json) {
      printJson(io.stdout, list);
      return EXIT.ok;
    }
    if (list.length === 0) {
      io.stdout('no snapshots\n');
      return EXIT.ok;
    }
    const now = Date.now();
    io.stdout(
      table(
        ['SNAPSHOT', 'AGE', 'COMMIT', 'ON', 'REF'],
        list.map((s) => [
          `${s.owner}/${s.n}`,
          formatAge(now - s.time * 1000),
          s.commit.slice(0, 10),
          s.parent?.slice(0, 10) ?? '-',
          s.ref,
        ]),
        // The snapshot's name is what adopt and restore take; its ref is that name under refs/lanes/snapshots/.
        { keep: ['SNAPSHOT', 'COMMIT'], drop: ['ON'], spare: ['AGE'], shorten: { REF: 'path' } },
      ),
    );
    return EXIT.ok;
  },
};
