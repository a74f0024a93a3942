import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { copyIfNewer } from './copy-if-newer.js';
import { AGENT_LOGINS } from './agent-logins.js';
import { carryGeminiChat, geminiChats } from './gemini-chats.js';
import type { AgentName } from './hook-event.js';

// An agent keeps its conversations in the login directory a seat swaps, so a session moved to
// another seat would find nothing to resume: its transcript is copied there first (Claude Code:
// projects/<cwd slug>/<id>.jsonl under CLAUDE_CONFIG_DIR; Codex: sessions/YYYY/MM/DD/
// rollout-<time>-<id>.jsonl under CODEX_HOME; Gemini CLI: .gemini/tmp/<project slug>/chats/ under
// GEMINI_CLI_HOME, core/gemini-chats.ts). A copy is never written over a file the new seat has.

interface Place {
  under: string;
  depth: number;
  name: (id: string) => (f: string) => boolean;
  /** Directories named so are carried too. */
  dir?: true;
}

const WHERE: Partial<Record<AgentName, Place>> = {
  // Beside <id>.jsonl, Claude Code keeps <id>/ (its subagents' transcripts, large tool results).
  'claude-code': { under: 'projects', depth: 1, name: (id) => (f) => f === `${id}.jsonl` || f === id, dir: true },
  codex: { under: 'sessions', depth: 3, name: (id) => (f) => f.startsWith('rollout-') && f.endsWith(`-${id}.jsonl`) },
};

/** The login directory a seat's variables select (its agent's first selecting variable), or null. */
export function loginDir(agent: string, env: Record<string, string>): string | null {
  const login = AGENT_LOGINS[agent as AgentName];
  const dir = login ? env[login.selects[0] as string] : undefined;
  return dir && dir.startsWith('/') ? dir : null;
}

/**
 * Copies conversation `id` of `agent` from one login directory to another; returns the files
 * copied (none: nothing found, an agent lanes cannot carry for, or an id that is not a plain name).
 */
export function carryConversation(agent: string, id: string, from: string | null, to: string | null): string[] {
  if (!from || !to || from === to || !/^[\w-]{1,200}$/.test(id)) return [];
  if (agent === 'gemini') return carryGeminiChat(id, from, to);
  const where = WHERE[agent as AgentName];
  if (!where) return [];
  const copied: string[] = [];
  for (const file of conversationFiles(where, id, from)) {
    const target = join(to, where.under, relative(join(from, where.under), file));
    if (copyIfNewer(file, target)) copied.push(target);
  }
  return copied;
}

/**
 * Whether login directory `dir` holds conversation `id` of `agent` (a resume there can find it), or
 * null for an agent lanes does not know where to look for.
 */
export function hasConversation(agent: string, id: string, dir: string | null): boolean | null {
  if (agent === 'gemini') return dir ? geminiChats(dir, id).length > 0 : false;
  const where = WHERE[agent as AgentName];
  if (!where) return null;
  return dir !== null && /^[\w-]{1,200}$/.test(id) && conversationFiles(where, id, dir).length > 0;
}

function conversationFiles(where: Place, id: string, from: string): string[] {
  const matches = where.name(id);
  const found: string[] = [];
  const walk = (dir: string, depth: number) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return; // no such directory yet: nothing to carry
    }
    for (const e of entries) {
      const p = join(dir, e.name);
      if (depth > 0 && e.isDirectory()) walk(p, depth - 1);
      else if (depth === 0 && (e.isFile() || (where.dir && e.isDirectory())) && matches(e.name)) found.push(p);
    }
  };
  walk(join(from, where.under), where.depth);
  return found;
}
