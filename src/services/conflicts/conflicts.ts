import { existsSync } from 'node:fs';
import { GIT_PARALLEL, inBatches } from '../../core/in-batches.js';
import { LanesError } from '../../core/errors.js';
import { foldPath } from '../../core/resource.js';
import { ignoresCase } from '../../git/ignore-case.js';
import { diffStat, mergeBase, previewMerge } from '../../git/merge.js';
import { captureWorktree, commitTree, diffNames } from '../../git/snapshot.js';
import { defaultBranch, revParse } from '../../git/worktree.js';
import type { SessionRecord } from '../../store/types.js';
import type { LanesContext } from '../context.js';

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
  const seen = new Set<string>();
  const mine = sessions.filter((s) => s.worktree && !seen.has(s.worktree) && seen.add(s.worktree));
  const works = (await inBatches(mine, GIT_PARALLEL, (s) => workOf(s, target))).filter(
    (w): w is SessionWork => w !== null,
  );
  const cwd = repo.worktreeRoot;
  // Every pair that shares a file costs one merge-tree (the part that grows with the square of
  // the sessions); each side's diffstat is read once per session, not once per pair, and up to
  // GIT_PARALLEL merge-trees run at a time (each is one short git process).
  const sharing: [SessionWork, SessionWork, string[]][] = [];
  const shared = new Map<SessionWork, Set<string>>();
  // One file on a case-insensitive file system, whatever the spelling of each side's change.
  const key = ignoresCase(repo.commonDir) ? foldPath : (f: string) => f.normalize('NFC');
  for (let i = 0; i < works.length; i++) {
    const mine = new Set(works[i]!.changed.map(key));
    for (let j = i + 1; j < works.length; j++) {
      const both = works[j]!.changed.filter((f) => mine.has(key(f)));
      if (both.length === 0) continue;
      sharing.push([works[i]!, works[j]!, both]);
      for (const w of [works[i]!, works[j]!])
        for (const f of both) (shared.get(w) ?? shared.set(w, new Set()).get(w)!).add(f);
    }
  }
  // Each side's diffstat of every file it shares with anyone, in one git call per session.
  const stats = new Map<SessionWork, Map<string, FileStat>>();
  for (const [w, files] of shared)
    stats.set(w, new Map((await diffStat(cwd, w.base ?? target, w.tip, [...files])).map((f) => [f.path, f])));
  const pick = (m: Map<string, FileStat> | undefined, files: string[]) =>
    files.flatMap((f) => (m?.get(f) ? [m.get(f) as FileStat] : []));
  const pairs: PairFinding[] = await inBatches(sharing, GIT_PARALLEL, async ([a, b, both]) => ({
    a: a.session.id,
    b: b.session.id,
    both,
    conflicts: (await previewMerge(cwd, a.tip, b.tip)).conflicts,
    aStat: pick(stats.get(a), both),
    bStat: pick(stats.get(b), both),
  }));
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
