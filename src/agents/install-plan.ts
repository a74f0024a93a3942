import type { AgentName } from '../core/hook-event.js';
import type { ConfigChange } from './install.js';
import { configFile, planInstall, planUninstall, readText } from './install.js';
import { mcpFile, planMcp, planStatusLine } from './install-extras.js';

// Every change of one `lanes hooks install|uninstall`, in the order they are applied. Several may
// edit one file (Gemini keeps hooks and MCP servers in settings.json; Claude Code hooks and the
// status line): each is planned on the text the one before leaves. Install: hooks first;
// uninstall: the others first, so that the hooks' record (which knows whether install created the
// file) decides last. Everything is planned, so validated, before anything is written.

export interface PlanOptions {
  projectRoot: string | null;
  home: string;
  user: boolean;
  /** How agents run lanes; null: uninstall. */
  prefix: string | null;
  statusLine: boolean;
  /** Claude Code's WorktreeCreate/WorktreeRemove (default: installed; false: `--no-worktree-hooks`). */
  worktreeHooks?: boolean;
}

export function planChanges(agents: AgentName[], o: PlanOptions): ConfigChange[] {
  const changes: ConfigChange[] = [];
  const texts = new Map<string, string | null>();
  const current = (file: string) => (texts.has(file) ? (texts.get(file) as string | null) : readText(file));
  const add = (c: ConfigChange) => {
    changes.push(c);
    texts.set(c.file, c.after);
  };
  for (const agent of agents) {
    const hooksFile = configFile(agent, o);
    const mcp = () => planMcp(agent, mcpFile(agent, o), o.prefix, current(mcpFile(agent, o)));
    const status = () => planStatusLine(hooksFile, o.prefix, current(hooksFile));
    const withStatus = agent === 'claude-code' && (o.statusLine || o.prefix === null);
    if (o.prefix !== null) {
      add(planInstall(agent, hooksFile, o.prefix, o.worktreeHooks === false ? { worktreeHooks: false } : {}));
      add(mcp());
      if (withStatus) add(status());
    } else {
      if (withStatus) add(status());
      add(mcp());
      add(planUninstall(agent, hooksFile, current(hooksFile)));
    }
  }
  return changes;
}
