import { spawnSync } from 'node:child_process';
import { EXIT, LanesError } from '../../core/errors.js';
import type { CommandSpec } from '../command.js';
import { findTmux, tmuxHas, tmuxMissing, tmuxOf } from '../tmux.js';

export const command: CommandSpec = {
  name: 'attach',
  summary: 'Join the tmux session of a session started by lanes new (switches the client inside tmux).',
  usage: 'attach SESSION',
  description: [
    'Outside tmux: tmux attach-session to the session lanes new started; inside tmux: switch-client to it.',
    'A session started with --background has no terminal: its output is in the log `lanes ls --json` names.',
  ].join('\n'),
  options: {},
  minPositionals: 1,
  maxPositionals: 1,
  examples: ['lanes attach s-4sx2k9d1qa'],
  async run(args, io) {
    const lanes = await io.lanes({ session: null });
    const s = await lanes.sessions.resolve(args.positionals[0]!);
    const name = tmuxOf(s.terminal);
    if (!name)
      throw new LanesError('E_USAGE', `session ${s.id} was not started in tmux by lanes new`, {
        hint: s.terminal?.startsWith('background ')
          ? `it runs in the background: tail -f ${s.terminal.slice(11)}`
          : 'attach to the terminal it was started in',
      });
    if (!findTmux()) throw tmuxMissing();
    if (s.state !== 'live' || !tmuxHas(name))
      throw new LanesError('E_NOT_FOUND', `session ${s.id} is ${s.state}; its tmux session ${name} is gone`, {
        hint: '`lanes ls --all` shows how it ended; `lanes report` what it left',
      });
    await lanes.close();
    const inside = !!process.env['TMUX'];
    const r = spawnSync('tmux', [inside ? 'switch-client' : 'attach-session', '-t', `=${name}`], { stdio: 'inherit' });
    return r.status ?? EXIT.error;
  },
};
