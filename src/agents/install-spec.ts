import type { AgentName } from '../core/hook-event.js';

/** One hook lanes adds to an agent's config. */
export interface HookEntry {
  /** The agent's event key in its config (PreToolUse, BeforeTool, preToolUse, …). */
  event: string;
  /** The EVENT argument of `lanes hook AGENT EVENT`. */
  arg: string;
  matcher?: string;
  /** In the agent's unit (seconds, or milliseconds for Gemini). */
  timeout: number;
}

export interface InstallSpec {
  agent: AgentName;
  /** Relative to the repository root. */
  projectFile: string;
  /** Relative to the home directory. */
  userFile: string;
  /** nested: hooks.EVENT = [{matcher, hooks: [{type, command, timeout}]}]; flat (Cursor): hooks.EVENT = [{command, matcher, timeout}]. */
  shape: 'nested' | 'flat';
  /** Keys every handler carries besides type/command/timeout (Gemini names its hooks). */
  handlerExtra: Record<string, unknown>;
  /** Top-level keys a new file starts with (Cursor's "version": 1). */
  newFile: Record<string, unknown>;
  entries: HookEntry[];
  /** Printed after an install. */
  notes: string[];
  /** Where the agent reads its MCP servers (`lanes mcp` is registered there as "lanes"). */
  mcp: { projectFile: string; userFile: string; format: 'json' | 'toml'; notes: string[] };
}

/** `lanes hook AGENT …` as written into configs, or any path to lanes' binary (…/cli.cjs). */
export function lanesHandlerPattern(agent: AgentName): RegExp {
  return new RegExp(`(?:^|[\\s/"'])(?:lanes|cli\\.cjs)["']?\\s+hook\\s+${agent.replace('-', '\\-')}(?:\\s|$)`);
}
