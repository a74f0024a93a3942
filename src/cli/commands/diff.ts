import { EXIT } from '../../core/errors.js';
import type { CommandSpec } from '../command.js';
import { diffHeading, patchText, statText } from '../diff-text.js';
import { terminalWidth } from '../layout.js';
import { printJson } from '../output.js';
import { page } from '../pager.js';

export const command: CommandSpec = {
  name: 'diff',
  summary: "Show a session's work against the main branch: committed and uncommitted, untracked files as added.",
  usage: 'diff SESSION [--stat] [--patch] [--json]',
  description: [
    "What SESSION (its id, label, ticket or tmux name) changed since its branch left the repository's main",
    'branch (their merge-base): its commits and, from its worktree, what is not committed yet, untracked files',
    "shown as added. The working state is read into a private index: the worktree's own index is never touched.",
    'A session whose worktree is gone is read from its branch lanes/<slug> and, when it sits on that',
    "branch's tip, its last snapshot; the first line says which.",
    'Paged on a terminal when longer than the screen ($PAGER, else less -R), coloured there (NO_COLOR turns',
    'colour off); never paged when piped or with --json.',
  ].join('\n'),
  options: {
    stat: { type: 'boolean', help: 'files with their added and deleted line counts and a total (uncommitted: *)' },
    patch: { type: 'boolean', help: "the full patch (the default; with --json: each file's hunks; with --stat: both)" },
  },
  minPositionals: 1,
  maxPositionals: 1,
  examples: ['lanes diff SHOP-12', 'lanes diff cart --stat', 'lanes diff s-1a2b3c --json --patch | jq .files'],
  async run(args, io) {
    const name = args.positionals[0]!;
    const stat = args.values['stat'] === true;
    const patch = args.values['patch'] === true || !stat;
    const lanes = await io.lanes({ session: null });
    const d = await lanes.sessions.diff(name, { patch: patch && (!io.json || args.values['patch'] === true) });
    if (io.json) {
      printJson(io.stdout, d);
      return EXIT.ok;
    }
    const notes = d.notes.map((n) => `  ${n}\n`).join('');
    let text = diffHeading(d, name) + notes;
    if (stat) text += statText(d.files, terminalWidth());
    if (patch) text += (stat && d.files.length ? '\n' : '') + (d.files.length ? patchText(d.files) : 'no changes\n');
    if (!page(text)) io.stdout(text);
    return EXIT.ok;
  },
};
