import { spawnSync } from 'node:child_process';
import { EXIT, LanesError } from '../../core/errors.js';
import type { CommandSpec } from '../command.js';
import { findTmux, tmuxHas, tmuxMissing, tmuxOf } from '../tmux.js';
import { existsSync, readFileSync } from 'node:fs';
import { paneLogOf, recordPane } from '../pane-log.js';

export const command: CommandSpec = {
  name: 'attach',
  summary: 'Join the tmux session of a session started by lanes new; of one that died, show its last screen.',
  usage: 'attach SESSION',
  description: [
    'Outside tmux: tmux attach-session to the session lanes new started; inside tmux: switch-client to it.',
    "Of a session that died or ended (its pane closed): its pane's log, the last 2-4 MiB of what it showed",
    '(kept by lanes new in $LANES_HOME/logs, 0600), paged on a terminal.',
    'A session started with --background has no terminal: its output is in the log `lanes ls --json` names.',
  ].join('\n'),
  options: {
    record: {
      type: 'boolean',
      internal: true,
      help: "(used by lanes new itself) keep stdin as the session's pane log",
    },
  },
  minPositionals: 1,
  maxPositionals: 1,
  examples: ['lanes attach SHOP-12', 'lanes attach lanes-shop-12'],
  async run(args, io) {
    if (args.values['record']) {
      await recordPane(args.positionals[0]!);
      return EXIT.ok;
    }
    const lanes = await io.lanes({ session: null });
    const s = await lanes.sessions.resolve(args.positionals[0]!);
    const name = tmuxOf(s.terminal);
    if (!name)
      throw new LanesError('E_USAGE', `session ${s.id} was not started in tmux by lanes new`, {
        hint: s.terminal?.startsWith('background ')
          ? `it runs in the background: tail -f ${s.terminal.slice(11)}`
          : 'attach to the terminal it was started in',
      });
    const log = paneLogOf(s.id);
    if (s.state !== 'live' || !findTmux() || !tmuxHas(name)) {
      if (existsSync(log))
        return showLog(
          log,
          `${s.id} ${s.state === 'live' ? 'lost its tmux session' : s.died ? `died (${s.died})` : 'ended'}`,
          io,
        );
      if (!findTmux()) throw tmuxMissing();
      throw new LanesError('E_NOT_FOUND', `session ${s.id} is ${s.state}; its tmux session ${name} is gone`, {
        hint: '`lanes ls --all` shows how it ended; `lanes report` what it left',
      });
    }
    await lanes.close();
    const inside = !!process.env['TMUX'];
    const r = spawnSync('tmux', [inside ? 'switch-client' : 'attach-session', '-t', `=${name}`], { stdio: 'inherit' });
    return r.status ?? EXIT.error;
  },
};

/** The dead session's last screen: paged with less -R on a terminal, else printed. */
function showLog(log: string, what: string, io: Parameters<CommandSpec['run']>[1]): number {
  io.stderr(`lanes: ${what}; its last screen, from ${log}:\n`);
  if (process.stdout.isTTY) {
    const r = spawnSync('less', ['-R', '+G', log], { stdio: 'inherit' });
    if (r.status === 0) return EXIT.ok;
  }
  io.stdout(readFileSync(log, 'utf8'));
  return EXIT.ok;
}
