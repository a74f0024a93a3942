import { EXIT } from '../../core/errors.js';
import { AGENT_LOGINS } from '../../core/agent-logins.js';
import { AGENTS } from '../../core/hook-event.js';
import type { AgentName } from '../../core/hook-event.js';
import { configFile, hookStatus } from '../../agents/install.js';
import { shellQuote } from '../../core/shell-quote.js';
import type { SeatView } from '../../index.js';
import type { CommandSpec } from '../command.js';
import { str, usageError } from '../command.js';
import { printJson, table } from '../output.js';
import { utcMinute } from '../../core/duration.js';

const when = utcMinute;

export const command: CommandSpec = {
  name: 'seat',
  summary: "Add, remove, list or reset seats: the agents' logins sessions lease (--seat on start and new).",
  usage:
    'seat add NAME --agent AGENT --env KEY=VALUE… [--concurrency N] [--pool P] [--pay-per-use] | seat rm NAME [--force] | seat ls [--all-hosts] | seat reset NAME',
  description: [
    'A seat is one agent login on this host, named by what selects it for the agent: its config directory',
    '(Claude Code CLAUDE_CONFIG_DIR, Codex CODEX_HOME, …; log in once with it set). lanes keeps no secret:',
    'a key or token is taken only as a reference, KEY=$VARIABLE or KEY=@/path/to/file, and a login that bills',
    'per call (an API key) only with --pay-per-use; `--seat auto` never picks one. `lanes start --seat NAME|auto`',
    'and `lanes new --seat` lease a seat to the session (a claim of one of its slots, fenced, released with the',
    'session); the session runs with its variables and without any billed-per-call variable it did not name.',
    'When an agent reports a usage limit or quota error, its seat is exhausted until the reset it named',
    '(else [seats] default_reset) and no session gets it before; what its session does is [seats] on_exhausted:',
    'next (lanes new restarts the agent on the next free seat), wait (until one frees) or stop.',
    'reset: the seat is usable again now (you know its quota came back).',
  ].join('\n'),
  options: {
    agent: { type: 'string', arg: 'AGENT', help: 'add: the agent whose login it is' },
    env: { type: 'string', arg: 'KEY=VALUE', multiple: true, help: 'add: what selects the login (repeat for more)' },
    concurrency: { type: 'string', arg: 'N', help: 'add: how many sessions may use it at once (default 1)' },
    pool: { type: 'string', arg: 'P', help: "add: the pool it fails over within (default: the agent's name)" },
    'pay-per-use': { type: 'boolean', help: 'add: it bills per call (an API key by reference); never chosen by auto' },
    force: { type: 'boolean', help: 'rm: even while a live session leases it' },
    'all-hosts': { type: 'boolean', help: "ls: every host's seats (a team store)" },
  },
  minPositionals: 1,
  maxPositionals: 2,
  examples: [
    'lanes seat add max-2 --agent claude-code --env CLAUDE_CONFIG_DIR=~/.claude-max-2',
    'lanes seat add plus-1 --agent codex --env CODEX_HOME=~/.codex-plus-1 --concurrency 2',
    'lanes new SHOP-12 --agent claude-code --seat auto',
  ],
  async run(args, io) {
    const [action, name] = args.positionals;
    const lanes = await io.lanes();
    if (action === 'ls') {
      if (name !== undefined) throw usageError(this, 'ls takes no NAME');
      const allHosts = args.values['all-hosts'] === true;
      const seats = await lanes.seats.list({ allHosts });
      // A key in a login's own files makes the seat unusable (never leased): said before the night.
      const billed = await lanes.seats.billed();
      // Another host's login files are not here to read: its seats' `billed` is null (not checked), not [].
      const here = allHosts ? new Set((await lanes.seats.list()).map((s) => `${s.host}\0${s.name}`)) : null;
      const of = (s: SeatView) =>
        here && !here.has(`${s.host}\0${s.name}`)
          ? null
          : (billed.find((b) => b.host === s.host && b.seat === s.name)?.sources ?? []);
      if (io.json)
        printJson(
          io.stdout,
          seats.map((s) => ({ ...seatJson(s), billed: of(s) })),
        );
      else if (seats.length === 0)
        io.stdout('no seats on this host (lanes seat add NAME --agent AGENT --env KEY=VALUE)\n');
      else io.stdout(seatTable(seats, args.values['all-hosts'] === true));
      if (!io.json)
        for (const { seat, sources } of billed)
          io.stderr(
            `lanes: warning: seat ${seat} would bill per call and is never leased: ${sources.map((b) => `${b.file} (${b.what})`).join('; ')}; take the key out of the file named\n`,
          );
      return EXIT.ok;
    }
    if (!name) throw usageError(this, `${action ?? 'add'} needs the seat's NAME`);
    if (action === 'add') {
      const agent = str(args.values['agent']);
      if (!agent) throw usageError(this, 'add needs --agent AGENT');
      const env = (args.values['env'] as string[] | undefined) ?? [];
      const concurrency = str(args.values['concurrency']);
      const pool = str(args.values['pool']);
      const seat = await lanes.seats.add({
        name,
        agent,
        env,
        ...(concurrency !== undefined ? { concurrency } : {}),
        ...(pool !== undefined ? { pool } : {}),
        payPerUse: args.values['pay-per-use'] === true,
      });
      const hooks = seatHooks(seat.agent, seat.env);
      if (io.json) printJson(io.stdout, { ...seat, hooks });
      else
        io.stdout(
          `added seat ${seat.name} (${seat.agent}, pool ${seat.pool}, ${seat.concurrency} at once${seat.payPerUse ? ', pay-per-use' : ''}): ${Object.entries(
            seat.env,
          )
            .map(([k, v]) => `${k}=${v}`)
            .join(' ')}\n`,
        );
      if (hooks && !hooks.installed)
        io.stderr(
          `lanes: warning: lanes' hooks are not in this login's settings (${hooks.file}): ${seat.agent} on this seat tells lanes nothing (a login running out included) in a repository without them in its project settings. Install them for the login: ${hooks.install}\n`,
        );
      return EXIT.ok;
    }
    if (action === 'rm') {
      const seat = await lanes.seats.remove(name, { force: args.values['force'] === true });
      if (io.json) printJson(io.stdout, seatJson(seat));
      else io.stdout(`removed seat ${seat.name}\n`);
      return EXIT.ok;
    }
    if (action === 'reset') {
      const changed = await lanes.seats.reset(name);
      if (io.json) printJson(io.stdout, { seat: name, reset: changed });
      else io.stdout(changed ? `seat ${name} is usable again\n` : `seat ${name} was not exhausted\n`);
      return EXIT.ok;
    }
    throw usageError(this, `unknown action ${JSON.stringify(action)}: use add, rm, ls or reset`);
  },
};

/**
 * Whether lanes' hooks are in the user-level settings the agent reads on this seat (its login
 * directory moves them: Claude Code reads $CLAUDE_CONFIG_DIR/settings.json, not ~/.claude's).
 * Null for an agent whose settings do not move with its login.
 */
function seatHooks(agent: string, env: Record<string, string>) {
  const known = (AGENTS as readonly string[]).includes(agent) ? (agent as AgentName) : null;
  const select = known ? AGENT_LOGINS[known].selects[0] : undefined;
  if (!known || AGENT_LOGINS[known].userDir === undefined || !select || !env[select]?.startsWith('/')) return null;
  const home = process.env['HOME'] || '/';
  const st = hookStatus(known, configFile(known, { projectRoot: null, home, user: true, env }));
  return {
    file: st.file,
    installed: st.exists && !st.error && st.missing.length === 0,
    install: `${select}=${shellQuote(env[select] as string)} lanes hooks install ${known} --user`,
  };
}

function seatJson(s: SeatView) {
  return {
    name: s.name,
    agent: s.agent,
    pool: s.pool,
    state: s.state,
    until: s.until,
    why: s.state === 'exhausted' ? s.exhaustedWhy : null,
    leasedBy: s.leasedBy,
    concurrency: s.concurrency,
    payPerUse: s.payPerUse,
    env: s.env,
    host: s.host,
  };
}

function seatTable(seats: SeatView[], hosts: boolean): string {
  return table(
    [...(hosts ? ['HOST'] : []), 'SEAT', 'AGENT', 'POOL', 'STATE', 'SESSIONS', 'SELECTS'],
    seats.map((s) => [
      ...(hosts ? [s.host] : []),
      s.payPerUse ? `${s.name} (pay-per-use)` : s.name,
      s.agent,
      s.pool,
      s.state === 'exhausted'
        ? `exhausted until ${when(s.until ?? 0)} (${s.exhaustedWhy ?? '?'})`
        : s.state === 'free'
          ? `free (${s.concurrency})`
          : `${s.state} ${s.leasedBy.filter((h) => h.state === 'live').length}/${s.concurrency}`,
      s.leasedBy.map((h) => `${h.session}${h.state === 'live' ? '' : ` (${h.state})`}`).join(', ') || '-',
      Object.entries(s.env)
        .map(([k, v]) => `${k}=${v}`)
        .join(' '),
    ]),
    // Whose it is and until when: wrapped, never cut.
    { keep: ['SEAT'], wrap: { STATE: 2, SESSIONS: 3, SELECTS: 2 } },
  );
}
