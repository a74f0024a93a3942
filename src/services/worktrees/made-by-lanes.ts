import { readFileSync, writeFileSync } from 'node:fs';
import { basename, join, relative, sep } from 'node:path';
import { crypto } from '../../core/builtins.js';
import { linkedGitDir } from '../../git/worktree-lock.js';

/**
 * How lanes knows a worktree is its own: a small file in the worktree's private git directory
 * (`.git/worktrees/<name>/lanes-made`), written when lanes creates it. It goes with the worktree
 * (git removes that directory), is never in the working tree, and a worktree someone made by hand
 * never has one: cleanup removes only worktrees that carry it.
 */
const MARKER = 'lanes-made';

export interface MadeByLanes {
  /** Who asked: `lanes start --worktree`, `lanes new`, `claude-code` (its WorktreeCreate hook). */
  by: string;
  branch: string;
  createdAt: number;
  /** Where it was made (its real path): one a person moved elsewhere is not removed by lanes. */
  path?: string;
  /**
   * The store its sessions are recorded in (its display form: no password). Another store cannot
   * tell whether a session still works there, so cleanup from it leaves the worktree alone.
   */
  store?: string;
  /**
   * Files lanes itself put in the worktree (the agents' project hooks it carried, untracked or
   * merged into a tracked config), by path relative to the worktree, with a hash of what lanes
   * wrote: unchanged, they are lanes', not the session's work.
   */
  carried?: Record<string, string>;
}

export function markMadeByLanes(worktree: string, made: MadeByLanes): void {
  const dir = linkedGitDir(worktree);
  if (dir) writeFileSync(join(dir, MARKER), `${JSON.stringify(made)}\n`);
}

/** The worktree's marker, or null when lanes did not make it (or it was made before markers existed). */
export function madeByLanes(worktree: string): MadeByLanes | null {
  const dir = linkedGitDir(worktree);
  if (!dir) return null;
  try {
    const data = JSON.parse(readFileSync(join(dir, MARKER), 'utf8')) as Partial<MadeByLanes>;
    return typeof data.branch === 'string' && typeof data.createdAt === 'number'
      ? {
          by: typeof data.by === 'string' ? data.by : 'lanes',
          branch: data.branch,
          createdAt: data.createdAt,
          ...(typeof data.store === 'string' ? { store: data.store } : {}),
          ...(typeof data.path === 'string' ? { path: data.path } : {}),
          ...(data.carried && typeof data.carried === 'object' ? { carried: data.carried } : {}),
        }
      : null;
  } catch {
    return null;
  }
}

/**
 * A worktree lanes made before it wrote markers: in lanes' own directory (`<repo>.lanes/<slug>`),
 * on the branch lanes names after it (`lanes/<slug>`), and recorded as some session's worktree.
 * All three, so a worktree a person put there by hand is not taken for one.
 */
export function madeByOlderLanes(
  worktree: string,
  branch: string | null,
  lanesDir: string,
  recordedBySession: boolean,
): boolean {
  return (
    recordedBySession &&
    join(lanesDir, basename(worktree)) === worktree &&
    branch === `refs/heads/lanes/${basename(worktree)}`
  );
}

const hashOf = (file: string): string | null => {
  try {
    return crypto().createHash('sha256').update(readFileSync(file)).digest('hex');
  } catch {
    return null;
  }
};

/** Records files lanes wrote into a worktree it made (carried hooks), as they are now. */
export function markCarried(worktree: string, files: string[]): void {
  const made = madeByLanes(worktree);
  if (!made || files.length === 0) return;
  const carried = { ...made.carried };
  for (const f of files) {
    const rel = relative(worktree, f);
    const hash = hashOf(f);
    if (hash && !rel.startsWith('..')) carried[rel.split(sep).join('/')] = hash;
  }
  markMadeByLanes(worktree, { ...made, carried });
}

/** The changes of `git status` that are the session's: not a file lanes carried in and nobody changed since. */
export function ownChanges<T extends { code: string; path: string }>(worktree: string, changes: T[]): T[] {
  const carried = madeByLanes(worktree)?.carried;
  if (!carried) return changes;
  return changes.filter((c) => !(carried[c.path] !== undefined && carried[c.path] === hashOf(join(worktree, c.path))));
}
