import { EXIT } from '../../core/errors.js';
import { formatAge } from '../../core/duration.js';
import { formatResource } from '../../core/resource.js';
import type { SessionView } from '../../index.js';
import type { CommandSpec } from '../command.js';
import { Table, printJson, sessionStateText } from '../output.js';

export const command: CommandSpec = {
  name: 'ls',
  summary: 'List sessions: live, dead (its owner is gone but it never ended) or ended (with --all).',
  usage: 'ls [--all] [--json]',
  description: [
    'By default: live sessions, and (the first 50) dead ones that still hold claims or have unsaved work',
    'in a worktree no live session shares; the other dead ones are counted (`lanes gc` ends them). --all lists every',
    'session, ended ones too, streamed as it is drawn. --json lists every session not ended (with --all:',
    'every session). STATE of a live session says what its agent signalled through its hooks: waiting (for',
    'you: a permission prompt, a question, a turn stopped on an error), finished (its turn), denied (lanes',
    'denied a call this turn); else live. `lanes notify --help`: being told of these.',
  ].join('\n'),
  options: { all: { type: 'boolean', short: 'a', help: 'every session, ended and dead ones included' } },
  maxPositionals: 0,
  async run(args, io) {
    // Only the `*` marker uses the session: $LANES_SESSION as set, no ancestor walk (one process-table read for the list).
    const lanes = await io.lanes({ session: process.env['LANES_SESSION'] || null });
    const all = args.values['all'] === true;
    if (io.json) {
      printJson(io.stdout, await lanes.sessions.list({ all }));
      return EXIT.ok;
    }
    const { sessions, hidden, moreDead } = all
      ? { sessions: await lanes.sessions.list({ all }), hidden: 0, moreDead: 0 }
      : await lanes.sessions.overview();
    const more =
      (moreDead
        ? `${moreDead} more dead session(s) holding claims or unsaved work not shown (lanes ls --all lists them; lanes gc ends them after saving their work)\n`
        : '') +
      (hidden
        ? `${hidden} dead session(s) without claims or unsaved work not shown (lanes ls --all lists them; lanes gc ends them)\n`
        : '');
    if (sessions.length === 0) {
      io.stdout(all ? 'no sessions\n' : more || 'no sessions (ended ones: lanes ls --all)\n');
      return EXIT.ok;
    }
    const now = await lanes.now();
    const row = (s: SessionView) => [
      s.id + (s.id === lanes.sessionId ? ' *' : ''),
      sessionStateText(s),
      formatAge(now - s.createdAt),
      s.agent,
      s.ticket,
      s.label,
      `${s.owner.pid}@${s.owner.host}${s.terminal?.startsWith('tmux ') ? ` (${s.terminal})` : ''}`,
      s.worktree ?? s.cwd,
      s.claims.length ? s.claims.map(formatResource).join(' ') : '',
    ];
    const table = new Table(
      ['SESSION', 'STATE', 'AGE', 'AGENT', 'TICKET', 'LABEL', 'PID', 'WORKTREE', 'CLAIMS'],
      sessions.map(row),
      {
        keep: ['SESSION'],
        drop: ['PID', 'AGE'],
        shorten: { CLAIMS: 'end', WORKTREE: 'middle', LABEL: 'end', TICKET: 'end', AGENT: 'end' },
      },
    );
    for (const chunk of table.chunks()) io.stdout(chunk);
    io.stdout(more);
    return EXIT.ok;
  },
};
