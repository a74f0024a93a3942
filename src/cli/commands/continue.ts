import { EXIT } from '../../core/errors.js';
import type { CommandSpec } from '../command.js';
import { printJson } from '../output.js';
import { budgetWords } from './budget.js';

export const command: CommandSpec = {
  name: 'continue',
  summary: 'Let a session paused by its budget go on: each limit it reached is raised by its own size again.',
  usage: 'continue SESSION [--json]',
  description: [
    'SESSION (its id, label, ticket or tmux name) was paused by a hard limit of its budget (lanes budget): its',
    'tool calls were denied and its model told to stop and wait. Each limit it reached is raised by its own size',
    'from what it has spent (usd=5 reached at $5.20: now $10.20), journaled (budget.continue); the pause and',
    'its waiting are cleared, and its next tool call goes through. Tell its agent to go on (lanes tell, or',
    'lanes attach). Exit 1 when it is not paused and within its budget.',
  ].join('\n'),
  options: {},
  minPositionals: 1,
  maxPositionals: 1,
  examples: ['lanes continue SHOP-12'],
  async run(args, io) {
    const lanes = await io.lanes({ session: null });
    const v = await lanes.sessions.continue(args.positionals[0]!);
    if (io.json) printJson(io.stdout, v);
    else io.stdout(budgetWords(v));
    return EXIT.ok;
  },
};
