import { isAbsolute, resolve } from 'node:path';
import { LanesError } from '../core/errors.js';
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
  return new LanesError('E_HOOK_INPUT', `lanes hook ${agent}: ${what}`, { hint: 'the call was allowed; check the agent version and the hook command in its config' });
}

export function text(payload: Payload, key: string): string | null {
  const v = payload[key];
  return typeof v === 'string' && v.length > 0 ? v : null;
}

export function record(value: unknown): Payload {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Payload) : {};
}

/** The event's working directory: absolute, else the hook process' own. */
export function cwdOf(payload: Payload, fallback = process.cwd()): string {
  const cwd = text(payload, 'cwd');
  return cwd && isAbsolute(cwd) ? cwd : fallback;
}

export function absolute(cwd: string, path: string): string {
  return isAbsolute(path) ? path : resolve(cwd, path);
}

export function pidFrom(value: string | undefined): number | null {
  return value && /^[1-9]\d{0,9}$/.test(value) ? Number(value) : null;
}

export function baseEvent(agent: AgentName, kind: HookKind, sessionId: string, cwd: string): HookEvent {
  return { agent, kind, agentSessionId: sessionId, cwd, paths: [], command: null, source: null, agentPid: null, envFile: null, toolName: null };
}

export const SILENT: HookOutput = { stdout: '', stderr: '', exitCode: 0 };

export function json(value: unknown, notice: string | null = null): HookOutput {
  return { stdout: JSON.stringify(value) + '\n', stderr: notice ? `lanes: ${notice}\n` : '', exitCode: 0 };
}
