import { isAbsolute, resolve } from 'node:path';
import { LanesError } from '../core/errors.js';
import { hookSessionId } from '../core/hook-event.js';
import type { AgentName, HookDecision, HookEvent, HookKind } from '../core/hook-event.js';

/** What the hook process prints and how it exits, in the agent's documented format. */
export interface HookOutput {
  stdout: string;
  stderr: string;
  exitCode: number;
}

export type Payload = Record<string, unknown>;
export type Env = Record<string, string | undefined>;

export interface AgentAdapter {
  name: AgentName;
  /** `lanes hook AGENT EVENT`: the EVENT names this agent's installed hooks pass. */
  events: readonly string[];
  parse(event: string, payload: Payload, env: Env): HookEvent;
  render(event: HookEvent, decision: HookDecision): HookOutput;
}

/** An input lanes cannot use; the hook fails open with this as its one-line message. */
export function badInput(agent: string, what: string): LanesError {
  return new LanesError('E_HOOK_INPUT', `lanes hook ${agent}: ${what}`, {
    hint: 'the call was allowed; check the agent version and the hook command in its config',
  });
}

export function text(payload: Payload, key: string): string | null {
  const v = payload[key];
  return typeof v === 'string' && v.length > 0 ? v : null;
}

export function record(value: unknown): Payload {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Payload) : {};
}

/** The event's working directory: absolute, else the fallback when absolute, else the hook process' own. */
export function cwdOf(payload: Payload, fallback?: string): string {
  const cwd = text(payload, 'cwd');
  if (cwd && isAbsolute(cwd)) return cwd;
  return fallback && isAbsolute(fallback) ? fallback : process.cwd();
}

export function absolute(cwd: string, path: string): string {
  return isAbsolute(path) ? path : resolve(cwd, path);
}

export function pidFrom(value: string | undefined): number | null {
  return value && /^[1-9]\d{0,9}$/.test(value) ? Number(value) : null;
}

export function baseEvent(agent: AgentName, kind: HookKind, sessionId: string, cwd: string): HookEvent {
  return {
    agent,
    kind,
    agentSessionId: sessionId,
    cwd,
    paths: [],
    command: null,
    source: null,
    subagent: null,
    agentPid: null,
    envFile: null,
    toolName: null,
    message: null,
    quota: null,
  };
}

/** The agent's login ran out (`why` as the agent names it; `resetAt` when it says when it resets). */
export function asQuota(e: HookEvent, why: string, words: string | null, resetAt: number | null): HookEvent {
  e.kind = 'quota';
  e.message = oneLine(words);
  e.quota = { why, resetAt };
  return e;
}

export { resetFromText } from './reset-time.js';

/** The agent waits for its person (`why`: its own words, cut to one line of at most 300 characters). */
export function asWaiting(e: HookEvent, why: string | null): HookEvent {
  e.kind = 'waiting';
  e.message = oneLine(why);
  return e;
}

/** The person gave a new prompt (the agent works again). */
export function asPrompt(e: HookEvent): HookEvent {
  e.kind = 'prompt';
  return e;
}

/** A message as one line for a list or a notification: whitespace collapsed, at most `max` characters. */
export function oneLine(text: string | null, max = 300): string | null {
  if (!text) return null;
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat || null : `${flat.slice(0, max - 1)}…`;
}

/** A lifecycle event: the session began or ended (and what began or ended it), or a turn ended. */
export function lifecycle(
  e: HookEvent,
  kind: 'session-start' | 'session-end' | 'stop' | 'subagent-stop',
  source: string | null = null,
): HookEvent {
  e.kind = kind;
  e.source = source;
  return e;
}

/** A tool call that writes `path` (before or after it ran). */
export function asEdit(e: HookEvent, post: boolean, path: string | null): HookEvent {
  if (!path) throw badInput(e.agent, `${e.toolName ?? 'an edit tool'} without tool_input.file_path`);
  e.kind = post ? 'post-edit' : 'pre-edit';
  e.paths = [absolute(e.cwd, path)];
  return e;
}

/** A shell command about to run (no command: nothing lanes looks at). */
export function asShell(e: HookEvent, command: string | null): HookEvent {
  if (command) {
    e.kind = 'pre-shell';
    e.command = command;
  }
  return e;
}

/** Cursor's `workspace_roots` (also in its payloads of Claude Code's hooks). */
export function workspaceRoots(payload: Payload): string[] {
  const roots = payload['workspace_roots'];
  return Array.isArray(roots) ? roots.filter((r): r is string => typeof r === 'string') : [];
}

export const SILENT: HookOutput = { stdout: '', stderr: '', exitCode: 0 };

export function json(value: unknown, notice: string | null = null): HookOutput {
  return { stdout: JSON.stringify(value) + '\n', stderr: notice ? `lanes: ${notice}\n` : '', exitCode: 0 };
}

/**
 * LANES_SESSION for the session's later shell commands: the session the decision names (inside a
 * lanes run, the run's), else the agent's own (none for an id lanes would refuse).
 */
export function sessionEnv(event: HookEvent, d: HookDecision): { env?: Record<string, string> } {
  try {
    return { env: { LANES_SESSION: d.session ?? hookSessionId(event) } };
  } catch {
    return {};
  }
}
