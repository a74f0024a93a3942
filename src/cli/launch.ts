import { BUDGET_KEY, budgetText, parseBudget } from '../core/budget.js';
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LanesError } from '../core/errors.js';
import { checkTask } from '../core/agent-run.js';
import { lanesHome } from '../core/paths.js';
import { refSafeSessionId } from '../core/slug.js';
import { shellQuote } from '../core/shell-quote.js';
import type { Lanes, SeatLease, SessionRecord } from '../index.js';
import { carryHooksInto } from './carry.js';
import { serveEnv } from './env-handoff.js';
import type { EnvHandoff } from './env-handoff.js';
import { decideGoOn, freshNote, prepareResume } from './go-on.js';
import type { GoOn } from './go-on.js';
import type { CarryReport } from './carry.js';
import { findTmux, tmux, tmuxHas, tmuxMissing, tmuxName } from './tmux.js';
import { makeDirsSync } from '../core/make-dirs.js';

// `lanes new` and `lanes up`: a session on its ticket in its own worktree, with its agent started
// detached (a tmux session, or --background) by a lanes wrapper that owns the session exactly as
// `lanes start -- CMD` does: LANES_SESSION set, signals forwarded, the session ended (its work
// snapshotted first) when the agent exits. Everything that can be refused (a ticket held, a bad
// base) is refused here, before anything starts.

/** Each agent's usual command. */
export const AGENT_COMMANDS: Record<string, string[]> = {
  'claude-code': ['claude'],
  codex: ['codex'],
  gemini: ['gemini'],
  cursor: ['cursor-agent'],
  copilot: ['copilot'],
  opencode: ['opencode'],
};

export interface LaunchOptions {
  /** The store as resolved (--store, LANES_STORE, the user config): the wrapper opens the same one. */
  store: string;
  ticket: string;
  agent: string | null;
  label: string | null;
  base: string | null;
  background: boolean;
  /** A seat to run the agent on (`lanes seat`): its name, or auto. */
  seat?: string | null;
  /** What the session may spend (--budget usd=5,…): its agent gets it as LANES_BUDGET, its hooks pause it past it. */
  budget?: string | null;
  cmd: string[];
  /** The agent's first task (lanes new --prompt), handed to it as its CLI takes one (core/agent-run.ts). */
  task?: string | null;
  /** Going on with the ticket's last session's work (--resume) or beside it (--fresh): go-on.ts. */
  goOn?: GoOn | null;
  /** Asks the person on a terminal what to do about it (else a refusal says both flags). */
  ask?: ((question: string) => Promise<GoOn | null>) | null;
}

export interface Launched {
  session: SessionRecord;
  worktree: string;
  branch: string;
  /** `tmux NAME` or `background LOGFILE`. */
  terminal: string;
  /** How to reach it. */
  attach: string;
  /** Agents whose project hooks were carried into the worktree, and those that could not be. */
  hooks: CarryReport | null;
  seat: SeatLease | null;
  /** What lanes did about the ticket's last session (resumed it, or started anew beside it). */
  notes: string[];
  /**
   * Where the start's time went, ms per phase (performance.now()): checks (tmux, the task, the
   * ticket's last session), ticket, worktree (config, git worktree add, .worktreeinclude), trust
   * (its lanes.toml), register, setup, seat, hooks (carried), tmux (or the background spawn),
   * wrapper (until it owns the session), settle (the wait that sees an agent exiting at once).
   */
  timings: Record<string, number>;
}

/**
 * The caller's environment for the wrapper (and so the agent: its API keys, PATH, LANES_HOME),
 * without the caller's session: never in tmux's argv (a store URL's password), nor in the tmux
 * server's own environment (LANES_SESSION there would make every later shell of it this session),
 * nor in a file (env-handoff.ts: a socket served while the start lasts).
 */
function wrapperEnv(store: string, budget: string | null): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, LANES_STORE: store, ...(budget ? { LANES_BUDGET: budget } : {}) };
  for (const k of ['LANES_SESSION', 'LANES_RUN', 'TMUX', 'TMUX_PANE', 'LANES_CD_FILE']) delete env[k];
  return env;
}

/** The environment tmux itself runs with: the caller's, without a session. */
function withoutSession(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env['LANES_SESSION'];
  return env;
}

export function commandFor(agent: string | null, cmd: string[]): string[] {
  if (cmd.length > 0) return cmd;
  const usual = agent ? AGENT_COMMANDS[agent] : undefined;
  if (usual) return usual;
  throw new LanesError('E_USAGE', agent ? `no usual command for agent ${JSON.stringify(agent)}` : 'nothing to start', {
    hint: `give --agent (${Object.keys(AGENT_COMMANDS).join(', ')}) or the command after --: lanes new T -- CMD ARGS…`,
  });
}

export async function launch(lanes: Lanes, o: LaunchOptions): Promise<Launched> {
  const timings: Record<string, number> = {};
  let t = performance.now();
  const lap = (phase: string) => {
    const now = performance.now();
    timings[phase] = now - t;
    t = now;
  };
  let cmd = commandFor(o.agent, o.cmd);
  // Refused before anything is made: a task the agent cannot take, or an empty or huge one.
  const agent = o.task ? checkTask(o.task, o.agent, cmd) : o.agent;
  const budget = o.budget ? budgetText(parseBudget(o.budget)) : null;
  if (!o.background && !findTmux()) throw tmuxMissing();
  const going = await decideGoOn(lanes, o.ticket, o.goOn ?? null, o.ask ?? null);
  const resume =
    going.how === 'resume' && going.predecessor ? await prepareResume(lanes, going.predecessor, agent, cmd) : null;
  const notes = resume?.notes ?? (going.how === 'fresh' && going.predecessor ? [freshNote(going.predecessor)] : []);
  if (resume) cmd = resume.cmd;
  lap('checks');
  const started = await lanes.sessions.start({
    pid: process.pid,
    label: o.label,
    agent,
    ticket: o.ticket,
    command: cmd.join(' '),
    task: o.task ?? null,
    ...(resume
      ? { worktree: resume.path, resumeFrom: going.predecessor!.session.id }
      : { newWorktree: { base: o.base } }),
    timings,
  });
  t = performance.now();
  const made = started.worktreeMade ?? { path: resume!.path, branch: resume!.branch, slug: resume!.slug };
  const id = started.id;
  const cli = fileURLToPath(new URL('./cli.cjs', import.meta.url));
  let terminal = '';
  let attach: string;
  let background: ReturnType<typeof spawn> | null = null;
  let hooks: CarryReport | null = null;
  let seat: SeatLease | null = null;
  let handoff: EnvHandoff | null = null;
  try {
    // The seat before anything runs: none to be had (each exhausted or in use) starts nothing.
    if (o.seat) seat = await lanes.seats.lease(id, o.seat, { command: cmd });
    lap('seat');
    // The agent starts in the worktree with lanes' project hooks, as `lanes start --worktree` gives them.
    hooks = await carryHooksInto(lanes, made.path);
    lap('hooks');
    if (budget) await lanes.state.setKey(id, BUDGET_KEY, { run: budget });
    const run = [process.execPath, cli, 'new', '--run-as', id];
    if (o.background) {
      const wrapper = [...run, '--', ...cmd];
      const dir = join(lanesHome(), 'logs');
      makeDirsSync(dir, 0o700);
      const log = join(dir, `${refSafeSessionId(id)}.log`);
      terminal = `background ${log}`;
      attach = `tail -f ${log}`;
      await lanes.sessions.setTerminal(id, terminal);
      const fd = openSync(log, 'a', 0o600);
      try {
        background = spawn(wrapper[0]!, wrapper.slice(1), {
          cwd: made.path,
          detached: true,
          stdio: ['ignore', fd, fd],
          env: wrapperEnv(o.store, budget),
        });
        background.on('error', () => undefined);
        background.unref();
      } finally {
        closeSync(fd);
      }
    } else {
      let name = tmuxName(made.slug);
      for (let n = 2; tmuxHas(name); n++) name = `${tmuxName(made.slug)}-${n}`;
      terminal = `tmux ${name}`;
      attach = `lanes attach ${id}`;
      await lanes.sessions.setTerminal(id, terminal);
      handoff = await serveEnv(wrapperEnv(o.store, budget));
      const wrapper = [...run, '--env-from', handoff.socket, '--', ...cmd];
      const r = tmux(['new-session', '-d', '-s', name, '-c', made.path, '--', ...wrapper], withoutSession());
      if (!r.ok)
        throw new LanesError('E_PLATFORM', `tmux could not start the session: ${r.err}`, { hint: 'check `tmux ls`' });
      // Its last screen is kept (pane-log.ts): the pane closes with the agent.
      const record = [process.execPath, cli, 'attach', id, '--record'].map(shellQuote).join(' ');
      tmux(['pipe-pane', '-o', '-t', `=${name}:`, `exec ${record}`], withoutSession());
    }
    lap('tmux');
    await ownedByWrapper(lanes, id);
    handoff?.close();
    lap('wrapper');
    await notGoneAtOnce(lanes, id);
    lap('settle');
  } catch (e) {
    handoff?.close();
    // Nothing left running or behind: its tmux session closed (or its wrapper killed), the session
    // ended (the ticket free again), its new worktree and branch removed (nothing was done there).
    if (terminal.startsWith('tmux ')) tmux(['kill-session', '-t', `=${terminal.slice(5)}`], withoutSession());
    background?.kill('SIGKILL');
    // The worktree may be kept (a process of the failed start still in it): said, never silently.
    await lanes.sessions
      .end(id, {
        reason: `lanes new could not start it: ${(e as Error).message}`,
        // A worktree a resumed session went on in is its predecessor's: never removed here.
        removeWorktree: started.worktreeMade !== null,
        forceLive: true,
      })
      .catch((kept: unknown) =>
        process.stderr.write(`lanes: the session ended, but ${(kept as Error).message.split('\n')[0]}\n`),
      );
    throw e;
  }
  const session = (await lanes.sessions.get(id)) as SessionRecord;
  return { session, worktree: made.path, branch: made.branch, terminal, attach, hooks, seat, notes, timings };
}

/** An agent that exits at once (a command not found, a bad flag) is said, not reported as started. */
async function notGoneAtOnce(lanes: Lanes, id: string): Promise<void> {
  await new Promise((r) => setTimeout(r, 500));
  const s = await lanes.sessions.get(id);
  // Done already (exit 0): a quick job, not a failed start.
  if (s.state === 'ended' && !/exited with code 0$/.test(s.endReason ?? ''))
    throw new LanesError('E_PLATFORM', `the agent exited at once: ${s.endReason ?? 'ended'}`, {
      hint: 'check the command (run it in a shell to see its output), or start it with --background to keep its output in the log',
    });
}

/** Waits (10 s at most) for the wrapper to take the session over: then the agent runs as it. */
async function ownedByWrapper(lanes: Lanes, id: string): Promise<void> {
  for (const deadline = Date.now() + 10_000; Date.now() < deadline;) {
    const s = await lanes.sessions.get(id);
    if (s.owner.pid !== process.pid) return;
    if (s.state === 'ended') break;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new LanesError('E_TIMEOUT', `the agent's wrapper did not take session ${id} over within 10 s`, {
    hint: 'the session was ended; run the same command with --background to see its output in the log',
  });
}
