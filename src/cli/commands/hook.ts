import { writeSync } from 'node:fs';
import { ADAPTERS, agentName } from '../../agents/index.js';
import { parseHookCall } from '../../agents/select.js';
import { baseEvent } from '../../agents/adapter.js';
import type { AgentAdapter, HookOutput } from '../../agents/adapter.js';
import { homedir } from 'node:os';
import { AGENTS, ALLOW, hookSessionId } from '../../core/hook-event.js';
import type { HookDecision, HookEvent } from '../../core/hook-event.js';
import type { Lanes } from '../../index.js';
import type { CommandSpec } from '../command.js';
import { readStdinJson } from '../stdin-json.js';

// Not imported from hook-worktree.ts: the hot path loads only what every tool call needs.
const WORKTREE_EVENTS = ['worktree-create', 'worktree-remove'];

export const command: CommandSpec = {
  name: 'hook',
  summary: "Answer one agent hook call (the agent's JSON on stdin); installed by `lanes hooks install`.",
  usage: 'hook AGENT EVENT < payload.json',
  description:
    `AGENT: ${AGENTS.join(', ')}. EVENT: the agent's event as written by \`lanes hooks install\`:\n` +
    Object.values(ADAPTERS)
      .map((a) => `${a.name}: ${a.events.join(' ')}`)
      .join('\n') +
    "\n(opencode's are called by lanes' OpenCode plugin).\n" +
    "Always exits 0 and answers in the agent's own output format. A deny always carries a reason.\n" +
    'Anything unexpected (bad JSON, unknown event, an unreachable store) fails open: the call is\n' +
    'allowed and one line on stderr says why.\n' +
    "Except claude-code worktree-create and worktree-remove (Claude Code's WorktreeCreate/WorktreeRemove):\n" +
    'worktree-create makes a lanes worktree and prints its path (exit 0), or exits 1 with the reason on\n' +
    'stderr (Claude Code has no fallback); worktree-remove exits 0 when the worktree was removed and 1\n' +
    'when lanes kept it (in use, uncommitted work saved in a snapshot, not made by lanes): journaled.',
  options: {},
  minPositionals: 2,
  maxPositionals: 2,
  failOpen: true,
  async run(args, io) {
    const agent = agentName(args.positionals[0] ?? '');
    if (agent === 'claude-code' && WORKTREE_EVENTS.includes(args.positionals[1] ?? ''))
      return (await import('../hook-worktree.js')).claudeWorktreeHook(args.positionals[1]!, io);
    try {
      const { adapter, event } = parseHookCall(agent, args.positionals[1] ?? '', readStdinJson, process.env);
      if (event.kind === 'ignore') return emit(adapter.render(event, ALLOW));
      const lanes = await io.lanes({ cwd: event.cwd, session: hookSessionId(event), notice: false });
      const decision = await lanes.hook(event);
      return emit(adapter.render(event, await withMcpHint(event, decision, lanes)));
    } catch (e) {
      // Bad input, the store locked or unreadable, git failing, …: never block the agent for lanes' own trouble.
      return emit(
        silentFor(ADAPTERS[agent]),
        `lanes hook: failed open (the call was allowed): ${(e as Error).message}`,
      );
    }
  },
};

/**
 * Where lanes' MCP server is registered for this agent, a deny and the briefing also name its
 * tools (they act as this session in every agent, sandbox or not). Read only then: an allowed tool
 * call reads no config.
 */
async function withMcpHint(event: HookEvent, d: HookDecision, lanes: Lanes): Promise<HookDecision> {
  const deny = d.permission === 'deny' && d.reason;
  const brief = event.kind === 'session-start' && d.context;
  if (!deny && !brief) return d;
  const { lanesMcpConfigured } = await import('../../agents/install-extras.js');
  const root = (await lanes.repository().catch(() => null))?.worktreeRoot ?? null;
  if (!lanesMcpConfigured(event.agent, root, process.env['HOME'] || homedir())) return d;
  const hint = deny
    ? " Or call lanes' MCP tool `claim` (server lanes) with these resources and waitSeconds: 60."
    : "\nlanes' MCP server (lanes) is connected: its tools (claim, release, check, claims, whoami, commit, conflicts, handoff_put, handoff_get) act as this session too.";
  return deny ? { ...d, reason: `${d.reason}${hint}` } : { ...d, context: `${d.context}${hint}` };
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
