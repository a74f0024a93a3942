import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { homeDir } from '../core/builtins.js';
import type { AgentName, HookEvent } from '../core/hook-event.js';
import type { AgentAdapter, Env, Payload } from './adapter.js';
import { asQuota, badInput, baseEvent, cwdOf, oneLine, text, workspaceRoots } from './adapter.js';
import { TRANSCRIPT_TAIL, endedOnQuota } from './claude-code/transcript.js';
import { rolloutRanOut } from './codex/rollout.js';
import { parseClaudeShaped, renderClaudeShaped } from './claude-shaped.js';
import { renderCopilot } from './copilot/adapter.js';
import { copilotInstall } from './copilot/install.js';
import { cursorSessionId, isCursorPayload, renderCursor } from './cursor/adapter.js';
import { cursorInstall } from './cursor/install.js';
import type { HookOutput } from './adapter.js';
import { ADAPTERS } from './index.js';
import { lanesHandlerPattern } from './install-spec.js';
import { tail } from './read-tail.js';

// Which adapter answers a hook call, decided before any adapter parses: the adapters only
// translate (they never read the disk nor know of one another); the one case where the caller is
// not the agent its hook was installed for is settled here.

/**
 * Whether lanes' own Cursor hooks are installed for these workspace roots or for the user. Cursor
 * runs Claude Code's hooks as well; when its own lanes hooks are there, the Claude Code entry point
 * stays silent for Cursor's events so that lanes acts once per event.
 */
export function cursorHooksInstalled(roots: string[], home = homeDir()): boolean {
  const mine = lanesHandlerPattern('cursor');
  for (const file of [...roots.map((r) => join(r, cursorInstall.projectFile)), join(home, cursorInstall.userFile)]) {
    try {
      if (mine.test(readFileSync(file, 'utf8'))) return true;
    } catch {
      // no such file: not installed there
    }
  }
  return false;
}

/** Cursor running Claude Code's hooks: act as the Cursor session, or not at all when lanes' Cursor hooks see the same event. */
function cursorThroughClaudeHooks(event: string, payload: Payload): HookEvent {
  const id = cursorSessionId(payload);
  if (!id) throw badInput('claude-code', 'a Cursor payload without conversation_id');
  const roots = workspaceRoots(payload);
  const cwd = cwdOf(payload, roots[0]);
  if (cursorHooksInstalled(roots.length > 0 ? roots : [cwd])) return baseEvent('cursor', 'ignore', id, cwd);
  return parseClaudeShaped('cursor', id, event, { ...payload, cwd });
}

/** One answer holding Claude Code's fields and another agent's, for an agent running Claude Code's hooks. */
function bothFormats(claude: HookOutput, other: HookOutput): HookOutput {
  if (!claude.stdout || !other.stdout) return claude.stdout ? claude : other;
  const both = { ...(JSON.parse(claude.stdout) as object), ...(JSON.parse(other.stdout) as object) };
  return { ...claude, stdout: JSON.stringify(both) + '\n' };
}

/**
 * Cursor reads Claude Code's hook output (hookSpecificOutput.permissionDecision) only behind a
 * compatibility option that is off by default, and its own fields always: the answer carries both,
 * so the deny blocks and its reason reaches the model either way.
 */
const CURSOR_IN_CLAUDE_HOOKS: AgentAdapter = {
  ...ADAPTERS['claude-code'],
  render: (event, decision) => bothFormats(renderClaudeShaped(event, decision), renderCursor(event, decision)),
};

/**
 * Copilot CLI reads .claude/settings.json as a repository config and runs the hooks there
 * (changelog: "Read .claude/settings.json and .claude/settings.local.json as additional repo
 * config sources", "Hook config files now support Claude Code's nested matcher/hooks structure").
 * Its PascalCase events give VS Code-compatible payloads (session_id, tool_name, tool_input, an
 * ISO 8601 `timestamp`, which Claude Code's payloads never have), and it sets COPILOT_CLI=1 for the
 * processes it starts. Such a call acts as the Copilot session (never as a second, Claude Code,
 * session of the same process, which would see the Copilot session's claims as another's), or not
 * at all when lanes' Copilot hooks see the same event; the answer carries both output formats.
 */
export function isCopilotThroughClaudeHooks(payload: Payload, env: Env): boolean {
  return env['COPILOT_CLI'] === '1' && typeof payload['timestamp'] === 'string';
}

/** Whether lanes' own Copilot CLI hooks are installed for this directory's repository or for the user. */
export function copilotHooksInstalled(cwd: string, env: Env, home = homeDir()): boolean {
  const mine = lanesHandlerPattern('copilot');
  const files = [join(env['COPILOT_HOME'] || join(home, '.copilot'), 'hooks', 'lanes.json')];
  // The repository root is the cwd or above it; its .github/hooks/ holds lanes' file.
  for (let dir = cwd; ; dir = dirname(dir)) {
    files.push(join(dir, copilotInstall.projectFile));
    if (dirname(dir) === dir) break;
  }
  return files.some((file) => {
    try {
      return mine.test(readFileSync(file, 'utf8'));
    } catch {
      return false; // no such file: not installed there
    }
  });
}

const COPILOT_IN_CLAUDE_HOOKS: AgentAdapter = {
  ...ADAPTERS['claude-code'],
  render: (event, decision) => bothFormats(renderClaudeShaped(event, decision), renderCopilot(event, decision)),
};

function copilotThroughClaudeHooks(event: string, payload: Payload, env: Env): HookEvent {
  const e = ADAPTERS.copilot.parse(event === 'stop' ? 'agent-stop' : event, payload, env);
  return copilotHooksInstalled(e.cwd, env) ? baseEvent('copilot', 'ignore', e.agentSessionId, e.cwd) : e;
}

/**
 * The event of one `lanes hook AGENT EVENT` call, and the adapter that renders the answer: always
 * the one the hook was installed for, since its caller reads that agent's output format. The
 * payload is read only once the event is known to be one of the agent's.
 */
export function parseHookCall(
  agent: AgentName,
  event: string,
  readPayload: () => Payload,
  env: Env,
): { adapter: AgentAdapter; event: HookEvent } {
  const adapter = ADAPTERS[agent];
  if (!adapter.events.includes(event))
    throw new Error(`unknown ${agent} event ${JSON.stringify(event)} (known: ${adapter.events.join(', ')})`);
  const payload = readPayload();
  if (agent === 'claude-code' && isCursorPayload(payload))
    return { adapter: CURSOR_IN_CLAUDE_HOOKS, event: cursorThroughClaudeHooks(event, payload) };
  if (agent === 'claude-code' && isCopilotThroughClaudeHooks(payload, env))
    return { adapter: COPILOT_IN_CLAUDE_HOOKS, event: copilotThroughClaudeHooks(event, payload, env) };
  const e = adapter.parse(event, payload, env);
  // Its transcript or rollout: what the session spent is read there (services/spend).
  const record = text(payload, 'transcript_path');
  if (record && record.startsWith('/')) e.record = record;
  if (agent === 'claude-code' && e.kind === 'session-end') {
    // Ended on its login running out (`claude -p` exits on it): the seat is exhausted as at StopFailure.
    const q = endedOnQuota(tail(text(payload, 'transcript_path'), TRANSCRIPT_TAIL));
    if (q) {
      e.quota = { why: q.why, resetAt: q.resetAt };
      e.message = oneLine(q.message);
    }
  }
  if (agent === 'codex' && (e.kind === 'session-end' || e.kind === 'stop')) {
    // Codex has no hook that carries a quota error: its rollout (transcript_path) says the turn
    // ended on the login running out. At Stop the session sits on the error (waiting); at its end
    // the seat is exhausted as the session ends.
    const q = rolloutRanOut(tail(text(payload, 'transcript_path')));
    if (q && e.kind === 'stop') asQuota(e, q.why, q.message, q.resetAt);
    else if (q) {
      e.quota = { why: q.why, resetAt: q.resetAt };
      e.message = oneLine(q.message);
    }
  }
  return { adapter, event: e };
}
