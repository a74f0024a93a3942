import { EXIT } from '../../core/errors.js';
import type { CommandSpec } from '../command.js';
import { str } from '../command.js';
import { printJson } from '../output.js';
import { printTarget, TRUST_OPTIONS } from './allow.js';

export const command: CommandSpec = {
  name: 'deny',
  summary: "Deny (or revoke) what a repository's lanes.toml runs; lanes refuses it, and says so, until allowed.",
  usage: 'deny [PATH] [--rev REV] [--json]',
  description: [
    'Records that this exact content of the lanes.toml (PATH, a file or its worktree; default this',
    "worktree's) must not run: an approval of it is revoked. A session start that would run it exits 6",
    'naming the file; a teardown it holds is not run and shows under "Needs you" in lanes report.',
    'lanes allow replaces the denial.',
  ].join('\n'),
  options: { ...TRUST_OPTIONS },
  maxPositionals: 1,
  examples: ['lanes deny', 'lanes deny --rev origin/pr-12'],
  async run(args, io) {
    const lanes = await io.lanes({ session: null });
    const rev = str(args.values['rev']);
    const t = await lanes.trust.deny({
      ...(args.positionals[0] ? { path: args.positionals[0] } : {}),
      ...(rev !== undefined ? { rev } : {}),
    });
    if (io.json) printJson(io.stdout, t);
    else {
      printTarget(io, t);
      if (t.runs.length) io.stdout('denied: lanes refuses to run or set these until you lanes allow it\n');
    }
    return EXIT.ok;
  },
};
