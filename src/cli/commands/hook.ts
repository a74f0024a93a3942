import { writeSync } from 'node:fs';
import { ADAPTERS, agentName } from '../../agents/index.js';
import { parseHookCall } from '../../agents/select.js';
import { baseEvent } from '../../agents/adapter.js';
import type { AgentAdapter, HookOutput } from '../../agents/adapter.js';
import { homeDir } from '../../core/builtins.js';
import { AGENTS, ALLOW, hookSessionId } from '../../core/hook-event.js';
import type { HookDecision, HookEvent } from '../../core/hook-event.js';
import type { Lanes } from '../../index.js';
import { spoolUnchecked } from '../../core/unchecked-spool.js';
import type { CommandSpec } from '../command.js';
import { readStdinJson } from '../stdin-json.js';

// Not imported from hook-worktree.ts: the hot path loads only what every tool call needs.
const WORKTREE_EVENTS = ['worktree-create', 'worktree-remove'];

export const command: CommandSpec = {
  name: 'hook',
  summary: "Answer one agent hook call (the agent's JSON on stdin); installed by `lanes hooks install`.",
  usage: 'hook AGENT EVENT < payload.json',
  // A getter: built only for --help, not in every tool call (it lists every agent's events).
  // One agent a line: an indented line stays a line of its own (layout.ts reflow).
  get description() {
    return (
      `AGENT: ${AGENTS.join(', ')}. EVENT: the agent's event as written by \`lanes hooks install\`:\n` +
      Object.values(ADAPTERS)
        .map(
          (a) =>
            `  ${a.name}${a.name === 'opencode' ? " (through lanes' OpenCode plugin)" : ''}: ${a.events.join(' ')}`,
        )
        .join('\n') +
      '\n\n' +
      "Always exits 0 and answers in the agent's own output format. A deny always carries a reason.\n" +
      'Anything unexpected (bad JSON, unknown event, an unreachable store) fails open: the call is\n' +
      'allowed and one line on stderr says why.\n' +
      "Except claude-code worktree-create and worktree-remove (Claude Code's WorktreeCreate/WorktreeRemove):\n" +
      'worktree-create makes a lanes worktree and prints its path (exit 0), or exits 1 with the reason on\n' +
      'stderr (Claude Code has no fallback); worktree-remove exits 0 when the worktree was removed and 1\n' +
      'when lanes kept it (in use, uncommitted work saved in a snapshot, not made by lanes): journaled.'
    );
  },
  options: {},
  minPositionals: 2,
  maxPositionals: 2,
  failOpen: true,
  async run(args, io) {
    const agent = agentName(args.positionals[0] ?? '');
    if (agent === 'claude-code' && WORKTREE_EVENTS.includes(args.positionals[1] ?? ''))
      return (await import('../hook-worktree.js')).claudeWorktreeHook(args.positionals[1]!, io);
    // Set once the input is good and lanes starts checking: a failure from there on is an unchecked call.
    let checking: { adapter: AgentAdapter; event: HookEvent } | null = null;
    try {
      const { adapter, event } = parseHookCall(agent, args.positionals[1] ?? '', readStdinJson, process.env);
      if (event.kind === 'ignore') return emit(adapter.render(event, ALLOW));
      const session = hookSessionId(event);
      checking = { adapter, event };
      const lanes = await io.lanes({ cwd: event.cwd, session, notice: false });
      const decision = await lanes.hook(event);
      // An agent's session begins: this host's watcher sees its death when it happens.
      if (event.kind === 'session-start') await startWatcher();
      return emit(adapter.render(event, await withMcpHint(event, decision, lanes)));
    } catch (e) {
      // Bad input, the store locked or unreadable, git failing, …: never block the agent for lanes' own trouble.
      const why = (e as Error).message;
      if (!checking) return emit(silentFor(ADAPTERS[agent]), `lanes hook: failed open (the call was allowed): ${why}`);
      return emit(...uncheckedAnswer(checking.adapter, checking.event, why));
    }
  },
};

/**
 * Where lanes' MCP server is registered for this agent, a deny and the briefing also name its
 * tools (they act as this session in every agent, sandbox or not). Read only then: an allowed tool
 * call reads no config.
 */
async function withMcpHint(event: HookEvent, d: HookDecision, lanes: Lanes): Promise<HookDecision> {
  // Only a deny a claim would lift (the claimed path, the shared file) names the tool call that lifts it.
  const deny = d.permission === 'deny' && d.reason && d.lifts?.length;
  const brief = event.kind === 'session-start' && d.context;
  if (!deny && !brief) return d;
  const { lanesMcpConfigured } = await import('../../agents/install-extras.js');
  const root = (await lanes.repository().catch(() => null))?.worktreeRoot ?? null;
  if (!lanesMcpConfigured(event.agent, root, homeDir())) return d;
  const hint = deny
    ? ` Or wait for it through lanes' MCP server (lanes): call its tool \`claim\` with ${JSON.stringify({ resources: d.lifts, waitSeconds: 60 })}.`
    : "\nlanes' MCP server (lanes) is connected: its tools (claim, release, check, claims, whoami, commit, conflicts, handoff_put, handoff_get) act as this session too.";
  return deny ? { ...d, reason: `${d.reason}${hint}` } : { ...d, context: `${d.context}${hint}` };
}

/**
 * A call lanes could not check (its store unreachable, lanes' own failure) is allowed, but loudly:
 * the model reads it where the agent shows lanes' context (before an edit or a shell command, at
 * session start), the person in the agent's message, and it is written down to be journaled when
 * the store answers again (services/hooks/unchecked.ts).
 */
function uncheckedAnswer(adapter: AgentAdapter, event: HookEvent, why: string): [HookOutput, string] {
  spoolUnchecked(process.env, {
    at: Date.now(),
    agent: event.agent,
    event: event.kind,
    session: event.agentSessionId ? `${event.agent}:${event.agentSessionId}` : null,
    cwd: event.cwd,
    subject: (event.paths.length ? event.paths.join(' ') : (event.command ?? '')).slice(0, 500),
    error: why.slice(0, 500),
  });
  const said =
    `lanes could not check this call (${why.split('\n')[0]?.slice(0, 300)}): it was allowed without looking at other ` +
    "sessions' claims. Coordinate yourself until lanes answers again; `lanes claims` shows who holds what.";
  const output = adapter.render(event, { ...ALLOW, context: said, notice: said });
  return [output, `lanes hook: failed open (the call was allowed, and the agent told): ${why}`];
}

/** The agent's "allowed, nothing to say" (Gemini wants {} on stdout). */
function silentFor(adapter: AgentAdapter): HookOutput {
  return adapter.render(baseEvent(adapter.name, 'ignore', '', ''), ALLOW);
}

/** Written with writeSync: the answer is small, and no stdout stream has to be set up in every tool call. */
function emit(output: HookOutput, extraNotice?: string): number {
  if (output.stdout) writeAll(1, output.stdout);
  const stderr = output.stderr + (extraNotice ? `${extraNotice}\n` : '');
  if (stderr) writeAll(2, stderr);
  return output.exitCode;
}

function writeAll(fd: number, text: string): void {
  const data = Buffer.from(text);
  for (let off = 0; off < data.length;) {
    try {
      off += writeSync(fd, data, off);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e;
    }
  }
}

/** The watcher of this hook's store (cli/watcher.ts), loaded only at a session's start. */
async function startWatcher(): Promise<void> {
  const { ensureWatcher } = await import('../watcher.js');
  const { resolveStore } = await import('../../services/config.js');
  await ensureWatcher(await resolveStore(undefined, process.env)).catch(() => undefined);
}
