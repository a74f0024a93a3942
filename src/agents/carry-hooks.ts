import { AGENTS } from '../core/hook-event.js';
import type { AgentName } from '../core/hook-event.js';
import { lanesPrefix, readConfig } from './config-file.js';
import { INSTALL_SPECS, applyChange, configFile, hookStatus, readText } from './install.js';
import { planChanges } from './install-plan.js';

// Isolation is where enforcement used to disappear: `lanes hooks install AGENT` writes the project's
// agent configs into the worktree it runs in, often untracked, and a worktree lanes made for a
// session had none of them. Every worktree lanes makes now gets lanes' project hooks of the
// worktree it was made from, re-applied by the same merge-safe installer (a file the new worktree
// already has from its branch keeps every byte of the user's; lanes' entries are added once).

export interface CarriedHooks {
  agent: AgentName;
  /** The new worktree's config that now holds lanes' entries. */
  files: string[];
}

/** The prefix lanes' hooks run with in `file` (`node /path/cli.cjs`, `npx lanes`, …), or null. */
function installedPrefix(agent: AgentName, file: string): string | null {
  const spec = INSTALL_SPECS[agent];
  const text = readText(file);
  if (text === null) return null;
  if (spec.shape === 'plugin') return spec.plugin?.prefixOf(text) ?? null;
  try {
    return lanesPrefix(readConfig(file, text), spec);
  } catch {
    return null;
  }
}

/**
 * Installs in worktree `to` the project hooks lanes has in worktree `from`, agent by agent, with
 * the command prefix they run there. An agent whose config in `from` is invalid or holds no lanes
 * hooks is left out; one whose config in `to` cannot be edited is reported, the others carried.
 */
export function carryProjectHooks(
  from: string,
  to: string,
  home: string,
): { carried: CarriedHooks[]; failed: { agent: AgentName; reason: string }[] } {
  const carried: CarriedHooks[] = [];
  const failed: { agent: AgentName; reason: string }[] = [];
  for (const agent of AGENTS) {
    const st = hookStatus(agent, configFile(agent, { projectRoot: from, home, user: false }));
    if (!st.exists || st.error || !st.events?.length) continue;
    const prefix = installedPrefix(agent, st.file) ?? 'lanes';
    try {
      // Claude Code's worktree hooks go where they were (installed without them: not added here).
      const worktreeHooks = st.events.includes('WorktreeCreate');
      const changes = planChanges([agent], {
        projectRoot: to,
        home,
        user: false,
        prefix,
        statusLine: false,
        worktreeHooks,
      });
      for (const c of changes) applyChange(c);
      carried.push({ agent, files: [...new Set(changes.filter((c) => c.after !== null).map((c) => c.file))] });
    } catch (e) {
      failed.push({ agent, reason: e instanceof Error ? e.message : String(e) });
    }
  }
  return { carried, failed };
}
