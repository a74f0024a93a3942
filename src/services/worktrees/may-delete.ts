import { sep } from 'node:path';

/**
 * "May lanes delete this worktree?": every rule in one place, asked by each door that removes one
 * (lanes gc --worktrees, lanes end --remove-worktree, Claude Code's WorktreeRemove hook). The
 * facts are gathered by the caller (worktree-facts.ts); the answer names the rule that refused.
 * Uncommitted work is not a rule here: each door snapshots it first and removes only what the
 * snapshot holds exactly.
 */
export interface DeletionFacts {
  /** The worktree as git lists it. */
  path: string;
  /** Its real path; null when it is missing on disk. */
  real: string | null;
  /** The path itself is a symbolic link (to wherever). */
  symlink: boolean;
  /** Real paths of the repository's main worktree and its git common directory. */
  mainWorktree: string;
  commonDir: string;
  /** The user's home directory, real path. */
  home: string | null;
  /** Whether lanes made it (made-by-lanes.ts). */
  madeByLanes: boolean;
  /** Where lanes made it, when that is not where it is now (a person moved it: git worktree move). */
  movedFrom: string | null;
  /** Other worktrees of the repository inside it (Claude Code's .claude/worktrees/, a dist/ checkout). */
  nestedWorktrees: string[];
  /** The store its sessions are recorded in, when that is not the store asking (null: this one, or not known). */
  otherStore: string | null;
  /** git's lock reason ('' locked without one), null when not locked. */
  locked: string | null;
  /** Live sessions whose worktree it is or whose directory is inside it, described. */
  liveSessions: string[];
  /** Processes working inside it (`pid name`), null when that could not be checked. */
  processes: string[] | null;
}

export type DeletionRule =
  | 'missing'
  | 'symlink'
  | 'system-directory'
  | 'contains-repository'
  | 'not-made-by-lanes'
  | 'moved'
  | 'contains-worktree'
  | 'other-store'
  | 'locked'
  | 'live-session'
  | 'process-inside';

export type DeletionVerdict = { ok: true } | { ok: false; rule: DeletionRule; why: string };

/** `child` is `parent` or inside it (both real, absolute paths). */
export function within(child: string, parent: string): boolean {
  return child === parent || child.startsWith(parent.endsWith(sep) ? parent : parent + sep);
}

export function mayDeleteWorktree(f: DeletionFacts): DeletionVerdict {
  const no = (rule: DeletionRule, why: string): DeletionVerdict => ({ ok: false, rule, why });
  if (f.real === null) return no('missing', 'it is not on disk');
  if (f.symlink) return no('symlink', 'the path is a symbolic link, not the worktree itself');
  if (f.real === sep || (f.home !== null && within(f.home, f.real)))
    return no('system-directory', `it is ${f.real === sep ? 'the root directory' : 'the home directory or holds it'}`);
  if (within(f.mainWorktree, f.real) || within(f.commonDir, f.real))
    return no('contains-repository', 'it is the main worktree or holds the repository');
  if (!f.madeByLanes) return no('not-made-by-lanes', 'lanes did not create it');
  if (f.movedFrom !== null) return no('moved', `it was moved here from ${f.movedFrom}, where lanes made it`);
  if (f.nestedWorktrees.length > 0)
    return no('contains-worktree', `other worktrees are inside it (${f.nestedWorktrees.slice(0, 3).join(', ')})`);
  if (f.otherStore !== null)
    return no(
      'other-store',
      `its sessions are recorded in another store (${f.otherStore}), which alone can tell whether one still works there`,
    );
  if (f.locked !== null) return no('locked', `git has it locked${f.locked ? ` (${f.locked})` : ''}`);
  if (f.liveSessions.length > 0) return no('live-session', `live session ${f.liveSessions.join(', ')} uses it`);
  if (f.processes && f.processes.length > 0)
    return no('process-inside', `a process works inside it (${f.processes.slice(0, 3).join(', ')})`);
  return { ok: true };
}
