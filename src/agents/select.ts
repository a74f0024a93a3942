import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { AgentName, HookEvent } from '../core/hook-event.js';
import type { AgentAdapter, Env, Payload } from './adapter.js';
import { badInput, baseEvent, cwdOf, workspaceRoots } from './adapter.js';
import { parseClaudeShaped, renderClaudeShaped } from './claude-shaped.js';
import { cursorSessionId, isCursorPayload, renderCursor } from './cursor/adapter.js';
import { cursorInstall } from './cursor/install.js';
import { ADAPTERS } from './index.js';
import { lanesHandlerPattern } from './install-spec.js';

// Which adapter answers a hook call, decided before any adapter parses: the adapters only
// translate (they never read the disk nor know of one another); the one case where the caller is
// not the agent its hook was installed for is settled here.

/**
 * Whether lanes' own Cursor hooks are installed for these workspace roots or for the user. Cursor
 * runs Claude Code's hooks as well; when its own lanes hooks are there, the Claude Code entry point
 * stays silent for Cursor's events so that lanes acts once per event.
 */
export function cursorHooksInstalled(roots: string[], home = homedir()): boolean {
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

/**
 * Cursor reads Claude Code's hook output (hookSpecificOutput.permissionDecision) only behind a
 * compatibility option that is off by default, and its own fields always: the answer carries both,
 * so the deny blocks and its reason reaches the model either way.
 */
const CURSOR_IN_CLAUDE_HOOKS: AgentAdapter = {
  ...ADAPTERS['claude-code'],
  render(event, decision) {
    const claude = renderClaudeShaped(event, decision);
    const cursor = renderCursor(event, decision);
    if (!claude.stdout || !cursor.stdout) return claude.stdout ? claude : cursor;
    const both = { ...(JSON.parse(claude.stdout) as object), ...(JSON.parse(cursor.stdout) as object) };
    return { ...claude, stdout: JSON.stringify(both) + '\n' };
  },
};

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
  return { adapter, event: adapter.parse(event, payload, env) };
}
