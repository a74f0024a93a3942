import { existsSync } from 'node:fs';
import { LanesError } from '../core/errors.js';
import { diffStat, mergeBase, previewMerge } from '../git/merge.js';
import { captureWorktree, commitTree, diffNames } from '../git/snapshot.js';
import { defaultBranch, revParse } from '../git/worktree.js';
import type { SessionRecord } from '../store/types.js';
import type { LanesContext } from './context.js';

export interface FileStat {
  path: string;
  added: number;
  removed: number;
}

export interface SessionWork {
  session: SessionRecord;
  /** A commit holding the session's committed AND uncommitted work (a throw-away snapshot commit when dirty). */
  tip: string;
  base: string | null;
  changed: string[];
}

export interface PairFinding {
  a: string;
  b: string;
  /** Files both sessions changed (committed since their base, or uncommitted). */
  both: string[];
  /** Files `git merge-tree` predicts will conflict textually. */
  conflicts: string[];
  /** Each side's diffstat of the shared files, so an agent can adapt. */
  aStat: FileStat[];
  bStat: FileStat[];
}

export interface CompetingFinding {
  session: string;
  target: string;
  /** Files the session changed that the target branch also changed since the session's base. */
  files: string[];
  targetStat: FileStat[];
}

export interface ConflictReport {
  target: string;
  pairs: PairFinding[];
  sameTicket: { ticket: string; sessions: string[] }[];
  competing: CompetingFinding[];
  found: boolean;
}

/** The session's work as one commit: HEAD when clean, else a snapshot commit (unreferenced) on top of HEAD. */
async function workOf(session: SessionRecord, target: string): Promise<SessionWork | null> {
  const wt = session.worktree;
  if (!wt || !existsSync(wt)) return null;
  // Always capture (one private-index add): cheaper than asking git status first and capturing after.
  const cap = await captureWorktree(wt);
  if (!cap.head) return null;
  // A throw-away commit of the whole working state on top of HEAD (unreferenced; git gc drops it).
  const tip = await commitTree(wt, cap.tree, cap.head, `lanes conflicts: work of ${session.id}`);
  const base = await mergeBase(wt, tip, target);
  const changed = (await diffNames(wt, base, tip)).map((f) => f.path);
  return { session, tip, base, changed };
}

/**
 * Early conflict prediction across the live sessions of this repository: files two sessions both
 * changed (committed and uncommitted), the textual conflicts merge-tree predicts between their
 * work, sessions on the same ticket, and files a session changed that the target branch also
 * changed since the session's base ("a competing fix landed").
 */
export async function findConflicts(ctx: LanesContext, options: { against?: string } = {}): Promise<ConflictReport> {
  const repo = await ctx.repo();
  if (!repo)
    throw new LanesError('E_USAGE', `${ctx.cwd} is not inside a git repository`, {
      hint: 'run lanes conflicts inside the repository',
    });
  const targetName = options.against ?? (await defaultBranch(repo.worktreeRoot));
  const target = targetName ? await revParse(repo.worktreeRoot, targetName) : null;
  if (!targetName || !target)
    throw new LanesError('E_USAGE', `no branch ${targetName ?? '(main)'} to compare against`, {
      hint: 'pass --against BRANCH',
    });
  // This machine's sessions only: a team store also holds other hosts', whose worktrees are not here.
  const sessions = await ctx.liveSessions((s) => s.repo === ctx.repoId(repo) && s.owner.host === ctx.host);
  // Sessions sharing one worktree share one work: count each worktree once.
  const works: SessionWork[] = [];
  const seen = new Set<string>();
  for (const s of sessions) {
    if (!s.worktree || seen.has(s.worktree)) continue;
    seen.add(s.worktree);
    const w = await workOf(s, target);
    if (w) works.push(w);
  }
  const cwd = repo.worktreeRoot;
  const pairs: PairFinding[] = [];
  for (let i = 0; i < works.length; i++) {
    for (let j = i + 1; j < works.length; j++) {
      const a = works[i]!;
      const b = works[j]!;
      const both = a.changed.filter((f) => b.changed.includes(f));
      if (both.length === 0) continue;
      const preview = await previewMerge(cwd, a.tip, b.tip);
      pairs.push({
        a: a.session.id,
        b: b.session.id,
        both,
        conflicts: preview.conflicts,
        aStat: await diffStat(cwd, a.base ?? target, a.tip, both),
        bStat: await diffStat(cwd, b.base ?? target, b.tip, both),
      });
    }
  }
  const byTicket = new Map<string, string[]>();
  for (const s of sessions) if (s.ticket) byTicket.set(s.ticket, [...(byTicket.get(s.ticket) ?? []), s.id]);
  const sameTicket = [...byTicket]
    .filter(([, ids]) => ids.length > 1)
    .map(([ticket, ids]) => ({ ticket, sessions: ids }));
  const competing: CompetingFinding[] = [];
  for (const w of works) {
    if (!w.base || w.base === target) continue;
    const landed = (await diffNames(cwd, w.base, target)).map((f) => f.path);
    const files = w.changed.filter((f) => landed.includes(f));
    if (files.length > 0)
      competing.push({
        session: w.session.id,
        target: targetName,
        files,
        targetStat: await diffStat(cwd, w.base, target, files),
      });
  }
  return {
    target: targetName,
    pairs,
    sameTicket,
    competing,
    found: pairs.length + sameTicket.length + competing.length > 0,
  };
}
