// The one internal shape of an agent's hook call, and of lanes' answer. Adapters (src/agents/*)
// translate each agent's JSON to a HookEvent and a HookDecision back to that agent's output; the
// policy (src/services/hooks/policy.ts) sees only these types.
import { assertSessionId } from './ids.js';

export const AGENTS = ['claude-code', 'codex', 'gemini', 'cursor', 'copilot', 'opencode'] as const;
export type AgentName = (typeof AGENTS)[number];

export type HookKind =
  /** The agent session began, resumed, was cleared or compacted. */
  | 'session-start'
  /** A tool is about to write these paths. */
  | 'pre-edit'
  /** A shell command is about to run. */
  | 'pre-shell'
  /** A tool wrote these paths. */
  | 'post-edit'
  /** The agent finished a turn. */
  | 'stop'
  /** The agent waits for its person: a permission prompt, a question, a turn stopped on an error. */
  | 'waiting'
  /** The person gave the agent a new prompt: it works again. */
  | 'prompt'
  /** The agent session is ending. */
  | 'session-end'
  /** The agent's login ran out: a usage limit, a quota or a billing error from its model's API. */
  | 'quota'
  /** A subagent of the session finished (Claude Code's SubagentStop): its worktree is settled. */
  | 'subagent-stop'
  /** An event or tool lanes has nothing to say about (allowed silently). */
  | 'ignore';

export interface HookEvent {
  agent: AgentName;
  kind: HookKind;
  /** The agent's own session id (lanes registers `<agent>:<id>`). */
  agentSessionId: string;
  /** The agent's working directory for this call (absolute). */
  cwd: string;
  /** Absolute paths the tool writes (pre-edit) or wrote (post-edit). */
  paths: string[];
  /** The shell command (pre-shell). */
  command: string | null;
  /** session-start: startup | resume | clear | compact | fork …; session-end: the reason. */
  source: string | null;
  /**
   * The subagent whose call this is (Claude Code's agent_id), or null for the session's own thread:
   * a subagent working in a worktree of its own (isolation: worktree) is a session of its own.
   */
  subagent: string | null;
  /** The agent's own pid when the agent says it (CLAUDE_PID); else lanes finds it. */
  agentPid: number | null;
  /** Claude Code's CLAUDE_ENV_FILE: `export K=V` lines written there reach later shell commands. */
  envFile: string | null;
  toolName: string | null;
  /** waiting: the agent's words (its notification, the error); stop: the start of its last message. */
  message: string | null;
  /** quota: what ran out as the agent names it (rate_limit, billing_error, usage_limit_reached, …) and when it resets, if said. */
  quota: { why: string; resetAt: number | null } | null;
  /** The agent's own record of the conversation (its transcript_path), when the payload names one. */
  record?: string | null;
}

export interface HookDecision {
  /** deny only ever comes with a reason (some agents ignore a deny without one). */
  permission: 'allow' | 'deny';
  /** Why it was denied: shown to the model, naming the holder and how to coordinate. */
  reason: string | null;
  /** Text for the model's context: the session-start briefing or an early-conflict warning. */
  context: string | null;
  /** One line for the person watching (stderr or the agent's system message). */
  notice: string | null;
  /** The sessions a deny or warning is about (for the journal; adapters do not send it). */
  holders?: string[];
  /**
   * The resources whose claim (waiting for it) would lift this deny, exactly: what the MCP hint
   * spells out. Absent for a deny no claim lifts (a shared worktree's git, an interrupted land).
   */
  lifts?: string[];
  /** session-start: the session the agent's later shell commands act as (the run it is bound to, or its own). */
  session?: string;
}

export const ALLOW: HookDecision = { permission: 'allow', reason: null, context: null, notice: null };

/** The agents cap hook output strings (Claude Code: 10,000 characters); keep the end marker visible. */
export function capText(text: string, max = 9000): string {
  return text.length <= max ? text : `${text.slice(0, max - 40)}\n… (${text.length - max + 40} more characters cut)`;
}

/** The lanes session id of an agent session: `<agent>:<the agent's own id>`. */
/**
 * The variables in which agents hand their own session id to the shell commands they run (and the
 * MCP servers they start): the session their hooks registered is `<agent>:<id>`. Codex runs the
 * model's commands in a pid namespace of its own, where no ancestor can be seen; this still names it.
 */
export const AGENT_SESSION_ENV: readonly (readonly [string, AgentName])[] = [
  ['CODEX_SESSION_ID', 'codex'],
  ['CLAUDE_CODE_SESSION_ID', 'claude-code'],
  ['GEMINI_SESSION_ID', 'gemini'],
  ['COPILOT_AGENT_SESSION_ID', 'copilot'],
];

export function hookSessionId(event: HookEvent): string {
  return assertSessionId(`${event.agent}:${event.agentSessionId}`, `${event.agent} session id`);
}
