import { EXIT } from '../../core/errors.js';
import type { CommandSpec } from '../command.js';
import { str, usageError } from '../command.js';
import { resolveStore } from '../../index.js';
import { launch } from '../launch.js';
import { errorText, printJson } from '../output.js';
import { recordWidth } from '../layout.js';
import { launchedJson, launchedText } from './new.js';
import { TASK_OPTIONS, goOnOf, taskFor } from '../task-option.js';
import { askOnTerminal } from '../go-on.js';

export const command: CommandSpec = {
  name: 'up',
  summary: 'Start one agent per ticket (lanes new for each), each in its own worktree and tmux session.',
  usage:
    'up TICKET… [--agent AGENT] [--prompt TEXT|--prompt-file FILE] [--resume|--fresh] [--base REF] [--seat NAME|auto] [--budget LIMITS] [--background] [--json] [-- CMD ARGS…]',
  description: [
    'For each TICKET in turn, what `lanes new TICKET` does. A ticket that cannot start (held by a live',
    'session, …) is said with its reason and the others still start; exit 1 when one did not.',
    "--prompt TEXT or --prompt-file FILE: each agent's first task; {ticket} becomes its ticket, so",
    '`--prompt-file tasks/{ticket}.md` gives each its own file (see `lanes new --help`).',
  ].join('\n'),
  options: {
    agent: { type: 'string', arg: 'AGENT', help: 'the agent to start for every ticket' },
    ...TASK_OPTIONS,
    resume: {
      type: 'boolean',
      help: "go on with the ticket's last session's work: its worktree, branch and conversation",
    },
    fresh: { type: 'boolean', help: "start anew beside the ticket's last session's work (which stays)" },
    base: { type: 'string', arg: 'REF', help: 'branch each worktree from REF (default: HEAD)' },
    background: { type: 'boolean', help: 'no tmux: run detached, output in each session log' },
    budget: {
      type: 'string',
      arg: 'LIMITS',
      help: 'what each session may spend before it is paused (lanes continue): usd=5,tokens=2M,tool_calls=400,wall=4h; soft_KEY only tells you',
    },
    seat: {
      type: 'string',
      arg: 'NAME|auto',
      help: "run each agent on a seat (a login: lanes seat); auto: the agent's least used free one",
    },
  },
  acceptsRest: true,
  minPositionals: 1,
  maxPositionals: 50,
  examples: [
    'lanes up SHOP-12 SHOP-15 SHOP-19 --agent claude-code --prompt-file tasks/{ticket}.md',
    'lanes up SHOP-3 SHOP-4 --agent codex --prompt "Fix {ticket}: see docs/tickets/{ticket}.md"',
  ],
  async run(args, io) {
    if (new Set(args.positionals).size !== args.positionals.length) throw usageError(this, 'a ticket is named twice');
    if (args.values['seat'] === 'auto' && args.values['agent'] === undefined)
      throw usageError(this, "--seat auto needs --agent: it picks among that agent's seats");
    const lanes = await io.lanes({ session: null });
    const store = await resolveStore(str(args.values['store']), process.env);
    const out: unknown[] = [];
    let failed = 0;
    for (const ticket of args.positionals) {
      try {
        const r = await launch(lanes, {
          store,
          ticket,
          agent: str(args.values['agent']) ?? null,
          label: null,
          base: str(args.values['base']) ?? null,
          background: args.values['background'] === true,
          seat: str(args.values['seat']) ?? null,
          budget: str(args.values['budget']) ?? null,
          cmd: args.rest,
          task: taskFor(args, ticket),
          goOn: goOnOf(args),
          ask: askOnTerminal(),
        });
        out.push(launchedJson(r));
        if (!io.json) io.stdout(launchedText(r));
      } catch (e) {
        failed++;
        const error = e as Error & { code?: string; hint?: string };
        out.push({ ticket, error: { code: error.code ?? 'E_INTERNAL', message: error.message } });
        if (!io.json)
          io.stderr(errorText(`lanes: ${ticket} not started:`, error.message, error.hint, recordWidth(process.stderr)));
      }
    }
    if (io.json) printJson(io.stdout, out);
    return failed > 0 ? EXIT.error : EXIT.ok;
  },
};
