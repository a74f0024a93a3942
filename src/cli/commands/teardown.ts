import { EXIT } from '../../core/errors.js';
import type { CommandSpec } from '../command.js';
import { printJson } from '../output.js';

export const command: CommandSpec = {
  name: 'teardown',
  summary: "Run a session's [session] teardown again: one that failed, or was killed while it ran.",
  usage: 'teardown SESSION [--json]',
  description: [
    'A session whose [session] setup ran has its teardown run once as it ends, whoever ends it (lanes end,',
    'stop, gc, the reap, the page, its wrapper). One that failed is journaled (teardown.fail), said by the',
    'command that ended the session, and listed under "Needs you" in the report with this command; it runs',
    "with the session's environment (its templated names, the ports it had) in its worktree, else the",
    "repository's main worktree. Exit 1 when it fails again, 6 when its lanes.toml is not allowed as it",
    'is now (lanes allow); 0 with nothing to do.',
  ].join('\n'),
  options: {},
  minPositionals: 1,
  maxPositionals: 1,
  examples: ['lanes teardown SHOP-4'],
  async run(args, io) {
    const lanes = await io.lanes({ session: null });
    const s = await lanes.sessions.get(args.positionals[0]!);
    const r = await lanes.sessions.teardown(s.id);
    if (io.json) printJson(io.stdout, { session: s.id, teardown: r });
    else if (!r) io.stdout(`${s.id}: no teardown due (its setup never ran, or its teardown ran)\n`);
    else if (r.ok) io.stdout(`${s.id}: [session] teardown ran${r.command ? `: ${r.command}` : ''}\n`);
    else io.stderr(`lanes: ${s.id}: [session] teardown failed: ${r.why ?? 'failed'}\n`);
    return r && !r.ok ? (r.blocked ? EXIT.untrusted : EXIT.error) : EXIT.ok;
  },
};
