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

/**
 * A reset time in an agent's words: an ISO time, or "resets at 3pm" / "resets 15:30" (the next such
 * time of day, local to this machine), or "try again in 2 hours" / "in 45 minutes". Null when none.
 */
export function resetFromText(text: string | null, now = Date.now()): number | null {
  if (!text) return null;
  const iso = /\b(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2}))/.exec(text);
  if (iso) {
    const t = Date.parse(iso[1] as string);
    if (Number.isFinite(t)) return t;
  }
  const rel = /\bin\s+(\d+(?:\.\d+)?)\s*(seconds?|secs?|minutes?|mins?|hours?|hrs?|h|m|s)\b/i.exec(text);
  if (rel) {
    const n = Number(rel[1]);
    const unit = (rel[2] as string).toLowerCase();
    const ms = unit.startsWith('h') ? 3_600_000 : unit.startsWith('m') ? 60_000 : 1000;
    return now + n * ms;
  }
  const clock = /\bresets?\s+(?:at\s+)?(\d{1,2})(?::(\d{2}))?\s*(am|pm)?\b/i.exec(text);
  if (clock) {
    let h = Number(clock[1]);
    const m = Number(clock[2] ?? 0);
    const ampm = clock[3]?.toLowerCase();
    if (ampm === 'pm' && h < 12) h += 12;
    if (ampm === 'am' && h === 12) h = 0;
    if (h > 23 || m > 59) return null;
    // "resets 5am (Europe/Berlin)": the clock of the zone named, else this machine's.
    const zone = /\(([A-Za-z]+(?:\/[A-Za-z0-9_+-]+)+|UTC)\)/.exec(text)?.[1];
    const wall = zone ? wallClock(now, zone) : null;
    if (wall) {
      let ahead = (h * 60 + m - wall.minutes) * 60_000 - wall.ms;
      if (ahead <= 0) ahead += 86_400_000;
      return now + ahead;
    }
    const d = new Date(now);
    d.setHours(h, m, 0, 0);
    if (d.getTime() <= now) d.setDate(d.getDate() + 1);
    return d.getTime();
  }
  return null;
}

/** The time of day in an IANA zone at `now`: minutes since its midnight and the milliseconds past that minute; null for an unknown zone. */
function wallClock(now: number, zone: string): { minutes: number; ms: number } | null {
  try {
    const parts = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hour: 'numeric',
      minute: 'numeric',
      hourCycle: 'h23',
    }).formatToParts(new Date(now));
    const num = (t: string) => Number(parts.find((p) => p.type === t)?.value);
    return { minutes: (num('hour') % 24) * 60 + num('minute'), ms: now % 60_000 };
  } catch {
    return null; // not a zone this Node knows
  }
}

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
  kind: 'session-start' | 'session-end' | 'stop',
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

/** LANES_SESSION for the session's later shell commands (none for an id lanes would refuse). */
export function sessionEnv(event: HookEvent): { env?: Record<string, string> } {
  try {
    return { env: { LANES_SESSION: hookSessionId(event) } };
  } catch {
    return {};
  }
}
