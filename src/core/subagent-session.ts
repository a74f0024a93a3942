import { crypto } from './builtins.js';
import { slugify } from './slug.js';

// The session of a worktree an agent made for something other than itself (a Claude Code
// subagent with isolation: worktree, a mid-session EnterWorktree): `<the agent's session>.<slug>`.
// Its hooks name the subagent (agent_id), whose worktree Claude Code names `agent-<agent_id>`:
// the subagent's calls find its session by that name, no read of every session.

/** The session id of worktree `slug` the agent session `agentSession` made. */
export function worktreeSessionId(agentSession: string, slug: string): string {
  const id = `${agentSession}.${slug}`;
  if (id.length <= 200) return id;
  // Too long for a session id: the slug's hash keeps two worktrees of one agent apart.
  const hash = crypto().createHash('sha256').update(slug).digest('hex').slice(0, 12);
  return `${agentSession.slice(0, 200 - 13)}.${hash}`;
}

/** The session of subagent `agentId`'s worktree, as WorktreeCreate (name `agent-<agentId>`) registered it. */
export function subagentSessionId(agentSession: string, agentId: string): string {
  return worktreeSessionId(agentSession, slugify(`agent-${agentId}`));
}

/** Whether `dir` is `root` or inside it (both real paths). */
export function within(dir: string, root: string | null): boolean {
  return root !== null && (dir === root || dir.startsWith(root.endsWith('/') ? root : `${root}/`));
}
