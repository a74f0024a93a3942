import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { EXIT, LanesError } from '../../core/errors.js';
import type { CommandSpec } from '../command.js';

export const command: CommandSpec = {
  name: 'top',
  summary: 'A live view of the fleet in the terminal: who needs you, waits, works, finished or died.',
  usage: 'top',
  description: [
    'Every session of the last 12 hours in five groups (Needs you, Waiting for input, Working, Finished,',
    'Died), each with its ticket, label, agent, age, last activity and what it spent (SPEND: dollars from',
    "its agent's own record and the price table, tokens when no price is known, - when not measured),",
    'read anew when the store changes (the journal says what ended or died) and every 10 s for the spend.',
    'Keys: up/down select, a or Enter attach to its tmux session',
    '(back here when you detach), s stop it (asks first), d its work (branch, uncommitted files, commits',
    'ahead), r the morning report, q quit. Fits 80 columns.',
  ].join('\n'),
  options: {},
  maxPositionals: 0,
  async run(_args, io) {
    if (io.json)
      throw new LanesError('E_USAGE', 'lanes top is a screen; for JSON use lanes ls --json or lanes report --json');
    if (!process.stdout.isTTY || !process.stdin.isTTY)
      throw new LanesError('E_USAGE', 'lanes top needs a terminal', {
        hint: 'lanes ls and lanes report print the same',
      });
    // ink and React live in their own bundle (an ES module), loaded by this command only.
    const top = fileURLToPath(new URL('./top.mjs', import.meta.url));
    if (!existsSync(top)) throw new LanesError('E_INTERNAL', `${top} is missing: the build is incomplete`);
    const r = spawnSync(process.execPath, [top], { stdio: 'inherit' });
    return r.status ?? EXIT.error;
  },
};
