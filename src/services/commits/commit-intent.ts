import { join } from 'node:path';
import type { OwnerIdentity } from '../../core/process-identity.js';
import { git } from '../../git/run.js';
import { EMPTY_TREE } from '../../git/snapshot.js';
import { gitDirOf, isAncestor, revParse } from '../../git/worktree.js';
import { removeIfOrphaned } from '../../git/index-lock.js';
import { indexMatches } from '../../git/status.js';
import type { JournalInput } from '../../store/journal-types.js';
import type { LanesContext } from '../context.js';
import { clearIntentFile, readIntentFiles, writeIntentFile } from '../journal/intent-files.js';
import { acquireGate } from '../state/gate.js';

/**
 * A `lanes commit` in flight (see journal/intent-files.ts): written before the branch moves,
 * removed once the commit is journaled. A kill after the branch moved and before the committed
 * paths' index entries followed leaves them staged as reversals of the commit; the next call
 * finishes that, or records that nothing was committed.
 */
export interface CommitIntent {
  v: 1;
  branch: string;
  from: string | null;
  to: string;
  worktree: string;
  /** The committed paths (relative to the worktree), whose index entries follow the commit. */
  paths: string[];
  session: string | null;
  repo: string | null;
  ticket: string | null;
  /** The committing process: a live one is never finished for. */
  owner: OwnerIdentity;
  at: number;
}

const dirOf = (commonDir: string) => join(commonDir, 'lanes', 'committing');

export function writeCommitIntent(commonDir: string, i: CommitIntent): void {
  writeIntentFile(dirOf(commonDir), i.branch, i);
}

export function clearCommitIntent(commonDir: string, branch: string): void {
  clearIntentFile(dirOf(commonDir), branch);
}

export function pendingCommits(commonDir: string): CommitIntent[] {
  return readIntentFiles<CommitIntent>(dirOf(commonDir), (i) => i.v === 1 && typeof i.branch === 'string');
}

export function commitEntryOf(
  i: CommitIntent,
  kind: 'commit' | 'commit.intent' | 'commit.abort',
  extra = {},
): JournalInput {
  return {
    kind,
    subject: i.branch,
    session: i.session,
    repo: i.repo,
    ticket: i.ticket,
    details: { commit: i.to, parent: i.from, files: i.paths.slice(0, 200), count: i.paths.length, ...extra },
  };
}

export function describeInterruptedCommit(i: CommitIntent): string {
  return `a lanes commit onto ${i.branch.replace('refs/heads/', '')} in ${i.worktree} was interrupted; the committed paths may show in git status as staged reversals of it (do not commit them)`;
}

/**
 * Finishes a commit left in flight whose process is gone: the branch moved, so the committed
 * paths' index entries are set to it (only when they still hold the parent's, nothing staged on
 * top) and the commit is journaled once; the branch did not move, so `commit.abort` is recorded.
 */
export async function finishCommit(
  ctx: LanesContext,
  commonDir: string,
  i: CommitIntent,
  by: string,
): Promise<string | null> {
  if (ctx.judge([{ owner: i.owner, lastSeenMs: i.at }], Date.now())[0]!.live) return null;
  const gate = await acquireGate(ctx, `commit-finish:${commonDir}:${i.branch}`, null, 'the interrupted commit');
  try {
    if (!pendingCommits(commonDir).some((p) => p.branch === i.branch && p.to === i.to)) return null;
    const now = await revParse(i.worktree, i.branch);
    const moved = now === i.to || (now !== null && now !== i.from && (await isAncestor(i.worktree, i.to, now)));
    if (!moved) {
      await ctx.store.appendJournal([
        commitEntryOf(i, 'commit.abort', { why: 'interrupted before the branch moved: nothing was committed', by }),
      ]);
      clearCommitIntent(commonDir, i.branch);
      return `nothing was committed (${i.branch.replace('refs/heads/', '')} did not move)`;
    }
    // The killed commit held git's index.lock: taken back (only a lock lanes took, its taker gone).
    removeIfOrphaned(await gitDirOf(i.worktree));
    let note = 'the index already followed it';
    if (i.paths.length > 0 && !(await indexMatches(i.worktree, i.to, i.paths))) {
      if (!(await indexMatches(i.worktree, i.from ?? EMPTY_TREE, i.paths)))
        throw new Error(`the index of ${i.worktree} holds other changes of those paths: look at git status there`);
      await git(['reset', '-q', i.to, '--', ...i.paths], { cwd: i.worktree });
      note = `set ${i.paths.length} path(s) of the index to the commit`;
    }
    const since = i.at - 600_000;
    const known = await ctx.store.readJournal({ kinds: ['commit'], since, limit: 1000 });
    if (!known.some((e) => e.kind === 'commit' && e.details['commit'] === i.to))
      await ctx.store.appendJournal([commitEntryOf(i, 'commit', { finishedBy: by, note })]);
    clearCommitIntent(commonDir, i.branch);
    return `committed ${i.to.slice(0, 12)} onto ${i.branch.replace('refs/heads/', '')}; ${note}`;
  } finally {
    await gate.release({ kind: 'keep' });
  }
}
