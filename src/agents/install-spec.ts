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
  /** Keys this handler carries besides the spec's (Claude Code: "async": true, never delaying the agent). */
  extra?: Record<string, unknown>;
  /**
   * Installed unless asked not to (`--no-worktree-hooks`), and never counted missing: Claude Code's
   * WorktreeCreate/WorktreeRemove, which replace its own worktree handling when present.
   */
  optional?: 'worktrees';
}

/** The spec without its optional worktree entries (`lanes hooks install --no-worktree-hooks`). */
export function withoutWorktreeHooks(spec: InstallSpec): InstallSpec {
  return { ...spec, entries: spec.entries.filter((e) => e.optional !== 'worktrees') };
}

export interface InstallSpec {
  agent: AgentName;
  /** Relative to the repository root. */
  projectFile: string;
  /** Relative to the home directory. */
  userFile: string;
  /**
   * nested: hooks.EVENT = [{matcher, hooks: [{type, command, timeout}]}]; flat (Cursor, Copilot):
   * hooks.EVENT = [{command, matcher, timeout}]; plugin (OpenCode): a file lanes writes whole
   * (its text comes from the agent's plugin.ts), no config entries.
   */
  shape: 'nested' | 'flat' | 'plugin';
  /** Keys every handler carries besides type/command/timeout (Gemini names its hooks). */
  handlerExtra: Record<string, unknown>;
  /** The handler's command and timeout keys when not `command`/`timeout` (Copilot: bash, timeoutSec). */
  keys?: { command: string; timeout: string };
  /** shape plugin: the file's text for a command prefix, and the first line that marks it as lanes'. */
  plugin?: { source(prefix: string): string; mark: string; prefixOf(text: string): string | null };
  /** Top-level keys a new file starts with (Cursor's "version": 1). */
  newFile: Record<string, unknown>;
  entries: HookEntry[];
  /** Printed after an install. */
  notes: string[];
  /** Where the agent reads its MCP servers (`lanes mcp` is registered there as "lanes"). */
  mcp: {
    projectFile: string;
    userFile: string;
    format: 'json' | 'toml';
    /** JSON: the object holding the servers (default mcpServers); OpenCode's `mcp` takes command as one array. */
    key?: 'mcpServers' | 'mcp';
    /** Keys the server entry carries besides command/args (Copilot: type, tools). */
    serverExtra?: Record<string, unknown>;
    notes: string[];
  };
}

/** `lanes hook AGENT …` as written into configs, or any path to lanes' binary (…/cli.cjs). */
export function lanesHandlerPattern(agent: AgentName): RegExp {
  return new RegExp(`(?:^|[\\s/"'])(?:lanes|cli\\.cjs)["']?\\s+hook\\s+${agent.replace('-', '\\-')}(?:\\s|$)`);
}
