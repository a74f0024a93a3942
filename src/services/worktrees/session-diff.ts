// A session's work (lanes diff, issue 49): what it changed against the point its branch left the
// repository's main branch (the merge-base), committed and uncommitted. From its worktree when it is
// still there: the working state (untracked files included) is captured as a tree in a private
// index, so the user's index is never read into, refreshed or written. Without its worktree: its
// branch lanes/<slug>, and its last snapshot when that sits on the branch's tip.
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { LanesError } from '../../core/errors.js';
import { changedPaths, diffFiles, mergeBase } from '../../git/diff.js';
import type { DiffFile } from '../../git/diff.js';
import { captureWorktree, EMPTY_TREE } from '../../git/snapshot.js';
import { branchExists, currentBranch, defaultBranch, revParse } from '../../git/worktree.js';
import type { SessionRecord } from '../../store/types.js';
import type { LanesContext } from '../context.js';
import type { SnapshotService } from '../snapshots/snapshots.js';
import { sessionNamed } from '../sessions/named.js';

export type { DiffFile, DiffStatus } from '../../git/diff.js';

export interface SessionDiffFile extends DiffFile {
  /** Its change is (partly) not committed: in the worktree, or in the snapshot shown. */
  uncommitted: boolean;
}

export interface SessionDiff {
  session: string;
  /** Where the work was read: the session's worktree, or (the worktree gone) its branch. */
  source: 'worktree' | 'branch';
  worktree: string | null;
  /** The branch read (refs/heads/…), or null when HEAD is detached. */
  branch: string | null;
  /** The snapshot whose uncommitted work is shown (source branch only). */
  snapshot: string | null;
  /** The repository's main branch compared with; null when none is found (then only uncommitted work shows). */
  target: string | null;
  /** The merge-base of the session's head and the main branch (the empty tree before a first commit). */
  base: string;
  /** The session's head commit (null before a first commit). */
  head: string | null;
  files: SessionDiffFile[];
  /** What was left out or could not be read, in words. */
  notes: string[];
}

/** The work of the session named `name` (an id, label, ticket or tmux name, as every command takes). */
export async function diffOf(
  ctx: LanesContext,
  snapshots: SnapshotService,
  name: string,
  options: { patch?: boolean } = {},
): Promise<SessionDiff> {
  const s = await sessionNamed(ctx, name);
  const patch = options.patch ?? false;
  if (s.worktree && existsSync(join(s.worktree, '.git'))) return fromWorktree(s, s.worktree, patch);
  return fromBranch(ctx, snapshots, s, patch);
}

async function fromWorktree(s: SessionRecord, worktree: string, patch: boolean): Promise<SessionDiff> {
  const captured = await captureWorktree(worktree);
  const [branch, target] = await Promise.all([currentBranch(worktree), defaultBranch(worktree)]);
  const notes = captured.skipped.map((k) => `${k.path} left out (${k.why})`);
  const { base, note } = await baseOf(worktree, captured.head, target);
  if (note) notes.push(note);
  const [files, uncommitted] = await Promise.all([
    diffFiles(worktree, base, captured.tree, patch),
    changedPaths(worktree, captured.head ?? EMPTY_TREE, captured.tree),
  ]);
  return {
    session: s.id,
    source: 'worktree',
    worktree,
    branch,
    snapshot: null,
    target,
    base,
    head: captured.head,
    files: marked(files, uncommitted),
    notes,
  };
}

async function fromBranch(
  ctx: LanesContext,
  snapshots: SnapshotService,
  s: SessionRecord,
  patch: boolean,
): Promise<SessionDiff> {
  const repo = await ctx.repo();
  const gone = s.worktree ? `its worktree ${s.worktree} is gone` : 'it has no worktree';
  if (!repo)
    throw new LanesError('E_NOT_FOUND', `session ${s.id}: ${gone}, and this is not a git repository`, {
      hint: "run lanes diff inside the session's repository to read its branch",
    });
  if (ctx.repoId(repo) !== s.repo)
    throw new LanesError('E_NOT_FOUND', `session ${s.id}: ${gone}, and it worked in another repository`, {
      hint: "run lanes diff inside the session's repository to read its branch",
    });
  const root = repo.worktreeRoot;
  const name = s.worktree && s.worktree !== root ? `lanes/${basename(s.worktree)}` : null;
  const head = name && (await branchExists(root, name)) ? await revParse(root, `refs/heads/${name}`) : null;
  const snapshot = (await snapshots.list(s.id).catch(() => [])).at(-1) ?? null;
  if (!name || !head)
    throw new LanesError('E_NOT_FOUND', `session ${s.id}: ${gone} and it has no branch${name ? ` ${name}` : ''}`, {
      hint: snapshot
        ? `its last snapshot ${snapshot.ref} holds its uncommitted work: \`lanes restore ${snapshot.owner}/${snapshot.n}\``
        : 'nothing of its work is left to show',
    });
  const target = await defaultBranch(root);
  const notes = [`${gone}`];
  const { base, note } = await baseOf(root, head, target);
  if (note) notes.push(note);
  const shown = snapshot && snapshot.parent === head ? snapshot : null;
  if (!shown && snapshot)
    notes.push(`its last snapshot ${snapshot.ref} is on another commit, not shown: \`lanes restore\` it to see it`);
  const to = shown ? shown.tree : head;
  const [files, uncommitted] = await Promise.all([
    diffFiles(root, base, to, patch),
    shown ? changedPaths(root, head, shown.tree) : Promise.resolve(new Set<string>()),
  ]);
  return {
    session: s.id,
    source: 'branch',
    worktree: null,
    branch: `refs/heads/${name}`,
    snapshot: shown?.ref ?? null,
    target,
    base,
    head,
    files: marked(files, uncommitted),
    notes,
  };
}

/** Where the session's line left the main branch: their merge-base (HEAD itself without a main branch or a shared history). */
async function baseOf(
  cwd: string,
  head: string | null,
  target: string | null,
): Promise<{ base: string; note: string | null }> {
  if (!head) return { base: EMPTY_TREE, note: null };
  if (!target) return { base: head, note: 'no main branch found: only uncommitted work is shown' };
  // origin's HEAD may name a branch only known as origin/<name> here.
  const tip = (await revParse(cwd, `refs/heads/${target}`)) ?? (await revParse(cwd, `refs/remotes/origin/${target}`));
  const base = tip ? await mergeBase(cwd, head, tip) : null;
  if (!base) return { base: head, note: `no history shared with ${target}: only uncommitted work is shown` };
  return { base, note: null };
}

const marked = (files: DiffFile[], uncommitted: Set<string>): SessionDiffFile[] =>
  files.map((f) => ({
    ...f,
    uncommitted: uncommitted.has(f.path) || (f.oldPath !== undefined && uncommitted.has(f.oldPath)),
  }));
