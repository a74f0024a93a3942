import { EXIT, LanesError } from '../../core/errors.js';
import { resolveStore } from '../../index.js';
import type { CommandSpec } from '../command.js';
import { str, usageError } from '../command.js';
import { AGENT_COMMANDS, launch } from '../launch.js';
import type { Launched } from '../launch.js';
import { printJson } from '../output.js';
import { TASK_OPTIONS, goOnOf, taskFor } from '../task-option.js';
import { askOnTerminal } from '../go-on.js';
import { TASK_DELIVERY } from '../../core/agent-run.js';
import { runOnSeat } from '../seated-run.js';
import { endRun } from '../end-run.js';
import { leaveShellIn } from '../shell-cd.js';
import { ensureWatcher } from '../watcher.js';
import { readEnv } from '../env-handoff.js';

export const command: CommandSpec = {
  name: 'new',
  summary: 'Start an agent on a ticket in its own worktree, detached in tmux; returns at once with how to attach.',
  usage:
    'new TICKET [--agent AGENT] [--prompt TEXT|--prompt-file FILE] [--resume|--fresh] [--label L] [--base REF] [--seat NAME|auto] [--budget LIMITS] [--background] [--cd] [--json] [-- CMD ARGS…]',
  description: [
    'Claims TICKET (refused, with its holder, when a live session has it: nothing is started), makes the',
    "session's worktree and branch lanes/<slug> (with .worktreeinclude, and lanes' project hooks), and starts",
    `the agent (its usual command: ${Object.entries(AGENT_COMMANDS)
      .map(([a, c]) => `${a} ${c.join(' ')}`)
      .join(', ')}; or CMD) in a detached tmux session named lanes-<slug>.`,
    'A lanes wrapper in it owns the session as `lanes start -- CMD` does: LANES_SESSION is set, signals are',
    'forwarded, and when the agent exits its work is snapshotted and the session ends. `lanes attach` joins it,',
    '`lanes stop` ends it. --background: no tmux, the output goes to $LANES_HOME/logs/<session>.log.',
    "The agent runs with the session's environment (what `lanes exec` gives: ports, templated names, a private",
    'TMPDIR, [env] strip applied). Its own hooks act as this session (one agent, one session).',
    "--prompt/--prompt-file: the agent's first task, recorded on the session and written to its private runtime",
    `directory, never put on the command line where other users' ps reads it: ${Object.entries(TASK_DELIVERY)
      .map(([a, how]) => `${a}: ${how}`)
      .join('; ')}. An agent lanes cannot hand a task to is refused before anything is made.`,
    '--json: the session, worktree, branch, terminal, task, and `timings`: the ms of each phase of the start',
    '(checks, ticket, worktree, trust, register, setup, seat, hooks, tmux, wrapper, settle).',
  ].join('\n'),
  options: {
    agent: { type: 'string', arg: 'AGENT', help: 'the agent to start (its usual command unless -- CMD)' },
    ...TASK_OPTIONS,
    resume: {
      type: 'boolean',
      help: "go on with the ticket's last session's work: its worktree, branch and conversation",
    },
    fresh: { type: 'boolean', help: "start anew beside the ticket's last session's work (which stays)" },
    label: { type: 'string', arg: 'L', help: 'a human name for the session' },
    base: { type: 'string', arg: 'REF', help: 'branch the worktree from REF (default: HEAD)' },
    background: { type: 'boolean', help: 'no tmux: run detached, output in the session log' },
    budget: {
      type: 'string',
      arg: 'LIMITS',
      help: 'what the session may spend before it is paused (lanes continue): usd=5,tokens=2M,tool_calls=400,wall=4h; soft_KEY only tells you',
    },
    seat: {
      type: 'string',
      arg: 'NAME|auto',
      help: "run the agent on a seat (a login: lanes seat); auto: the agent's least used free one",
    },
    cd: { type: 'boolean', help: "leave your shell in the new worktree (needs `lanes shell-init`'s function)" },
    'run-as': {
      type: 'string',
      arg: 'SESSION',
      internal: true,
      help: '(used by lanes new itself) run CMD as SESSION, its owner',
    },
    'env-from': {
      type: 'string',
      internal: true,
      arg: 'SOCKET',
      help: '(used by lanes new itself) where to read the environment to run CMD with',
    },
  },
  acceptsRest: true,
  minPositionals: 0,
  maxPositionals: 1,
  examples: [
    'lanes new SHOP-12 --agent claude-code --prompt-file tasks/SHOP-12.md',
    'lanes new SHOP-15 --label rounding -- codex --full-auto',
  ],
  async run(args, io) {
    const runAs = str(args.values['run-as']);
    if (runAs !== undefined) return wrap(runAs, str(args.values['env-from']), args.rest, io);
    const ticket = args.positionals[0];
    if (!ticket) throw usageError(this, 'give the TICKET to work on: lanes new TICKET');
    if (args.values['seat'] === 'auto' && args.values['agent'] === undefined)
      throw usageError(this, "--seat auto needs --agent: it picks among that agent's seats");
    const lanes = await io.lanes({ session: null });
    const r = await launch(lanes, {
      store: await resolveStore(str(args.values['store']), process.env),
      ticket,
      agent: str(args.values['agent']) ?? null,
      label: str(args.values['label']) ?? null,
      base: str(args.values['base']) ?? null,
      background: args.values['background'] === true,
      seat: str(args.values['seat']) ?? null,
      budget: str(args.values['budget']) ?? null,
      cmd: args.rest,
      task: taskFor(args, ticket),
      goOn: goOnOf(args),
      ask: askOnTerminal(),
    });
    if (io.json) printJson(io.stdout, launchedJson(r));
    else io.stdout(launchedText(r));
    if (args.values['cd'] === true) leaveShellIn(r.worktree, io);
    return EXIT.ok;
  },
};

export function launchedJson(r: Launched) {
  return {
    session: r.session.id,
    ticket: r.session.ticket,
    worktree: r.worktree,
    branch: r.branch,
    terminal: r.terminal,
    attach: r.attach,
    hooks: r.hooks,
    seat: r.seat ? { name: r.seat.seat.name, slot: r.seat.slot, token: r.seat.token } : null,
    task: r.session.task,
    notes: r.notes,
    // Rounded to 0.1 ms: where the start's time went, phase by phase (launch.ts says which).
    timings: Object.fromEntries(Object.entries(r.timings).map(([k, v]) => [k, Math.round(v * 10) / 10])),
  };
}

export function launchedText(r: Launched): string {
  const name = r.session.label ? `${r.session.label} (${r.session.id})` : r.session.id;
  const hooks = r.hooks?.carried.length
    ? `  project hooks of ${r.hooks.carried.map((c) => c.agent).join(', ')} installed in it\n`
    : '';
  const failed = (r.hooks?.failed ?? []).map(
    (f) => `  warning: ${f.agent}'s project hooks could not be installed: ${f.reason}\n`,
  );
  const seat = r.seat ? `  on seat ${r.seat.seat.name} (slot ${r.seat.slot}, token ${r.seat.token})\n` : '';
  const notes = r.notes.map((n) => `  ${n}\n`).join('');
  return `${name} on ${r.session.ticket} in ${r.worktree} (branch ${r.branch}), ${r.terminal.startsWith('tmux ') ? `tmux session ${r.terminal.slice(5)}` : 'in the background'}\n  ${r.attach}\n${notes}${seat}${hooks}${failed.join('')}`;
}

/** Inside tmux (or detached): take the session over, run the agent as it, end it when the agent exits. */
async function wrap(
  id: string,
  envFrom: string | undefined,
  cmd: string[],
  io: Parameters<CommandSpec['run']>[1],
): Promise<number> {
  if (cmd.length === 0) throw new LanesError('E_USAGE', 'lanes new --run-as SESSION needs the command after --');
  // The caller's environment, not the tmux server's: served by lanes new while the start lasts, never on disk.
  if (envFrom) {
    const env = await readEnv(envFrom);
    for (const k of Object.keys(process.env)) delete process.env[k];
    Object.assign(process.env, env);
  }
  const lanes = await io.lanes({ session: null });
  // This host's watcher sees the run's death even when this wrapper is killed with its agent.
  await ensureWatcher(await resolveStore(undefined, process.env));
  const s = await lanes.sessions.get(id);
  if (s.state === 'ended')
    throw new LanesError('E_SESSION_ENDED', `session ${id} has ended (${s.endReason ?? 'ended'})`);
  const cwd = s.worktree ?? s.cwd;
  await lanes.sessions.attach({ id, agent: s.agent, cwd, pid: process.pid });
  const r = await runOnSeat(lanes, id, cmd, cwd, (line) => io.stderr(`${line}\n`));
  try {
    await endRun(lanes, id, r);
  } catch (e) {
    io.stderr(`lanes: session ${id} was not ended (${(e as Error).message}); end it with \`lanes end ${id}\`\n`);
  }
  return r.code;
}
