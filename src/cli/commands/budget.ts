import { budgetText } from '../../core/budget.js';
import { EXIT } from '../../core/errors.js';
import type { BudgetView } from '../../index.js';
import type { CommandSpec } from '../command.js';
import { usageError } from '../command.js';
import { printJson } from '../output.js';

export const command: CommandSpec = {
  name: 'budget',
  summary: 'Show what a session may spend and has spent, or raise its budget: lanes budget raise SESSION usd=20.',
  usage: 'budget [SESSION] | budget raise SESSION LIMITS [--json]',
  description: [
    'SESSION (its id, label, ticket or tmux name; default: the session this shell or agent acts as): its budget',
    "(the user config's [budget.session], its run's --budget, as raised), what it spent (tokens from its agent's",
    'own record, a cost estimate from the price table, tool calls, wall time) and whether it is paused.',
    'raise SESSION LIMITS sets hard limits (usd=20,tokens=5M,tool_calls=800,wall=8h), journaled; a session',
    'paused by a limit now above its spend goes on (lanes continue raises each limit reached by its own size).',
    'A session past a hard limit is paused: its next tool calls are denied with words telling the model to stop,',
    'summarize and wait; you are told (waiting, notified); after [budget] grace (30m) the watcher stops it as',
    'lanes stop does (its work saved first). A soft limit (soft_usd=…) only tells you, once.',
  ].join('\n'),
  options: {},
  maxPositionals: 3,
  examples: ['lanes budget SHOP-12', 'lanes budget raise SHOP-12 usd=20'],
  async run(args, io) {
    const [first, second, third] = args.positionals;
    const lanes = await io.lanes();
    let v: BudgetView;
    if (first === 'raise') {
      if (!second || !third) throw usageError(this, 'lanes budget raise SESSION LIMITS (e.g. usd=20,tokens=5M)');
      v = await lanes.sessions.raiseBudget(second, third);
    } else {
      if (second !== undefined) throw usageError(this, 'lanes budget [SESSION], or lanes budget raise SESSION LIMITS');
      const name = first ?? lanes.sessionId;
      if (!name) throw usageError(this, 'name the session: lanes budget SESSION (this shell acts as none)');
      v = await lanes.sessions.budgetOf(name);
    }
    if (io.json) printJson(io.stdout, v);
    else io.stdout(budgetWords(v));
    return EXIT.ok;
  },
};

export function budgetWords(v: BudgetView): string {
  const t = v.spent.usage;
  const tokens = t.input + t.output + t.cacheRead + t.cacheWrite;
  const lines = [
    `${v.session}: spent about $${v.spent.usd.toFixed(2)}, ${tokens.toLocaleString('en-US')} tokens (in ${t.input}, out ${t.output}, cache read ${t.cacheRead}, cache write ${t.cacheWrite}), ${t.toolCalls} tool call(s), ${Math.round(v.spent.wallMs / 60_000)} min`,
    v.budget
      ? `budget: ${budgetText(v.budget)}`
      : 'budget: none ([budget.session] in the user config, or lanes new --budget)',
  ];
  if (v.paused)
    lines.push(`paused since ${new Date(v.paused.at).toISOString()}: ${v.paused.what} (lanes continue ${v.session})`);
  else if (v.reached) lines.push(`reached: ${v.reached}; its next tool call pauses it`);
  return `${lines.join('\n')}\n`;
}
