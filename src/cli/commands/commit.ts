import { readFileSync } from 'node:fs';
import { EXIT, LanesError } from '../../core/errors.js';
import type { CommandSpec } from '../command.js';
import { ACT_AS } from '../command.js';
import { str, usageError } from '../command.js';
import { printJson } from '../output.js';

export const command: CommandSpec = {
  name: 'commit',
  summary:
    "Commit exactly the named files and directories onto this worktree's branch, and nothing anyone else staged.",
  usage: 'commit -m|--message MSG | -F|--file FILE [--session S] [--json] [--] PATH…',
  description: [
    'Additions, modifications, deletions and renames (name both sides, or a directory holding them) of the',
    "named paths as they are on disk. The commit is built in a private index under git's own index.lock, the",
    "branch moves by compare-and-swap, and afterwards only those paths' entries of the index follow the",
    'commit: whatever else is staged stays staged and out of this commit. Paths claimed by another live',
    'session are refused (exit 3); a detached HEAD or a merge/rebase in progress is refused (exit 1).',
    'Git hooks (pre-commit, commit-msg) do not run: the commit is written with git plumbing.',
  ].join('\n'),
  options: {
    message: { type: 'string', short: 'm', arg: 'MSG', help: 'the commit message' },
    file: { type: 'string', short: 'F', arg: 'FILE', help: 'read the commit message from FILE (- for stdin)' },
    session: ACT_AS,
  },
  acceptsRest: true,
  examples: [
    'lanes commit -m "Fix invoice totals" -- src/billing/invoice.ts src/billing/tests/',
    'lanes commit -F msg.txt -- "docs/a file with spaces.md" -leading-dash.txt',
  ],
  async run(args, io) {
    const m = str(args.values['message']);
    const f = str(args.values['file']);
    if ((m === undefined) === (f === undefined))
      throw usageError(this, 'give the message with exactly one of -m MSG or -F FILE');
    let message = m ?? '';
    if (f !== undefined) {
      try {
        message = readFileSync(f === '-' ? 0 : f, 'utf8');
      } catch (e) {
        throw new LanesError(
          'E_NOT_FOUND',
          `cannot read the message file ${f}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
          { hint: 'name a readable file' },
        );
      }
    }
    const paths = [...args.positionals, ...args.rest];
    if (paths.length === 0) throw usageError(this, 'name the paths to commit: lanes commit -m MSG -- PATH…');
    const lanes = await io.lanes();
    const result = await lanes.commit(paths, message);
    if (io.json) printJson(io.stdout, result);
    else {
      io.stdout(
        `[${result.branch.replace(/^refs\/heads\//, '')} ${result.commit.slice(0, 10)}] ${message.split('\n')[0]}\n`,
      );
      for (const file of result.files) io.stdout(`  ${file.status} ${file.path}\n`);
    }
    return EXIT.ok;
  },
};
