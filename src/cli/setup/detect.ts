import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { AGENTS } from '../../core/hook-event.js';
import type { AgentName } from '../../core/hook-event.js';
import { AGENT_COMMANDS } from '../launch.js';

// Which agents this machine has, for `lanes setup`: the program lanes new starts for it
// (launch.ts AGENT_COMMANDS: claude, codex, gemini, cursor-agent, copilot, opencode) on PATH, or
// its user config directory. Either is enough: an agent installed by a package manager lanes
// does not know is still seen by its directory, one never run yet by its program.

/** Each agent's user config directory under the home, and the variable that moves it (a seat's, a custom home). */
const CONFIG_DIRS: Record<AgentName, { dir: string; env?: string; under?: string }> = {
  'claude-code': { dir: '.claude', env: 'CLAUDE_CONFIG_DIR' },
  codex: { dir: '.codex', env: 'CODEX_HOME' },
  gemini: { dir: '.gemini', env: 'GEMINI_CLI_HOME', under: '.gemini' },
  cursor: { dir: '.cursor' },
  copilot: { dir: '.copilot', env: 'COPILOT_HOME' },
  opencode: { dir: '.config/opencode', env: 'XDG_CONFIG_HOME', under: 'opencode' },
};

export interface FoundAgent {
  agent: AgentName;
  /** The program's path on PATH, or null. */
  program: string | null;
  /** The config directories that exist. */
  configDirs: string[];
  found: boolean;
}

type Env = Record<string, string | undefined>;

/** The executable file `name` on env's PATH, as a shell would find it, or null. */
export function onPath(name: string, env: Env): string | null {
  for (const dir of (env['PATH'] ?? '').split(delimiter)) {
    if (!dir) continue;
    const file = join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      if (statSync(file).isFile()) return file;
    } catch {
      // not here
    }
  }
  return null;
}

const isDir = (p: string) => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};

export function findAgents(home: string, env: Env): FoundAgent[] {
  return AGENTS.map((agent) => {
    const program = (AGENT_COMMANDS[agent] ?? []).map((p) => onPath(p, env)).find((p) => p !== null) ?? null;
    const c = CONFIG_DIRS[agent];
    const moved = c.env ? env[c.env]?.trim() : undefined;
    const dirs = [join(home, c.dir), ...(moved ? [join(moved, c.under ?? '')] : [])];
    const configDirs = [...new Set(dirs)].filter(isDir);
    return { agent, program, configDirs, found: program !== null || configDirs.length > 0 };
  });
}
