import { existsSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { abortInProgress, restoreBranch } from '../../git/bring-up.js';
import { currentBranch, isAncestor, pruneWorktrees, removeWorktree, revParse } from '../../git/worktree.js';
import { clearIntentFile, readIntentFiles, writeIntentFile } from '../journal/intent-files.js';

/**
 * A queue step in flight: a session's branch about to be brought onto the target's tip in a
 * worktree (and checked there), written before git touches it and removed once the session
 * landed or was put back. A kill in between leaves it; the next run (recoverQueue) aborts a
 * rebase or merge left in the middle and puts the branch back where it was, unless it landed.
 */
export interface QueueIntent {
  v: 1;
  session: string;
  branch: string;
  /** The branch's tip before the bring-up. */
  tip: string;
  /** The branch it lands into (short name). */
  target: string;
  /** The target's tip it is brought onto. */
  onto: string;
  /** What the bring-up made (null: not yet recorded, or none needed). */
  brought: string | null;
  worktree: string;
  /** A worktree made for this step (the session's own was removed): removed after it. */
  temporary: boolean;
  /** Local clock, ms. */
  at: number;
}

const dirOf = (commonDir: string) => join(commonDir, 'lanes', 'queue');

export function writeQueueIntent(commonDir: string, i: QueueIntent): void {
  writeIntentFile(dirOf(commonDir), i.session, i);
}

export function clearQueueIntent(commonDir: string, session: string): void {
  clearIntentFile(dirOf(commonDir), session);
}

/** A worktree made for one step, gone with its temporary directory (and git's record of it). */
export async function dropTemporary(root: string, wt: string): Promise<void> {
  if (existsSync(wt)) await removeWorktree(root, wt, true).catch(() => undefined);
  rmSync(dirname(wt), { recursive: true, force: true });
  await pruneWorktrees(root).catch(() => undefined);
}

/**
 * Undoes what a killed run left (run under the queue's gate, before anything else): a rebase or
 * merge in the middle aborted, a branch brought up but not landed put back at its tip (a landing
 * that did publish is lanes land's to finish: landing-intent.ts). The sessions it put back.
 */
export async function recoverQueue(commonDir: string, root: string): Promise<string[]> {
  const left = readIntentFiles<QueueIntent>(dirOf(commonDir), (i) => i.v === 1 && typeof i.session === 'string');
  const done: string[] = [];
  for (const i of left) {
    let note = 'put back as it was';
    try {
      if (existsSync(i.worktree)) {
        await abortInProgress(i.worktree);
        const on = (await currentBranch(i.worktree))?.replace(/^refs\/heads\//, '');
        const now = await revParse(i.worktree, 'HEAD');
        // Landed: as it landed. Else put back only what the bring-up made: at its result, or (the
        // kill before the result was recorded) on top of the tip it was brought onto. A commit an
        // agent added since stays.
        const landed = now !== null && (await isAncestor(root, now, `refs/heads/${i.target}`));
        const ours = i.brought ? now === i.brought : now !== null && (await isAncestor(root, i.onto, now));
        if (on === i.branch && now !== i.tip && !landed) {
          if (ours) await restoreBranch(i.worktree, i.tip);
          else note = `left as it is (${i.worktree} has commits of its own since)`;
        }
      }
    } catch (e) {
      note = `could not be put back (${(e as Error).message.split('\n')[0]}): left as it is`;
    }
    if (i.temporary) await dropTemporary(root, i.worktree).catch(() => undefined);
    clearQueueIntent(commonDir, i.session);
    done.push(`${i.session} (${note})`);
  }
  return done;
}
