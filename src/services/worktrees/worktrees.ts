import { existsSync, realpathSync, rmdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { LanesError } from '../../core/errors.js';
import { slugify } from '../../core/slug.js';
import { addWorktree, branchExists, deleteBranch, removeWorktree, revParse } from '../../git/worktree.js';
import { loadConfig } from '../config.js';
import type { LanesContext } from '../context.js';
import { copyWorktreeIncludes } from '../runtime/worktree-include.js';
import type { IncludeReport } from '../runtime/worktree-include.js';
import { lanesWorktreeDir } from './worktree-dir.js';
import { markMadeByLanes } from './made-by-lanes.js';

export interface CreatedWorktree {
  path: string;
  branch: string;
  slug: string;
  base: string;
  /** What .worktreeinclude copied from the main worktree (null without a .worktreeinclude). */
  included: IncludeReport | null;
}

/**
 * Creates `<repo-parent>/<repo-name>.lanes/<slug>` on a new branch `lanes/<slug>` from `base`
 * (default: the current HEAD). The slug comes from the ticket or label and is made unique against
 * both existing directories and existing branches.
 */
export async function createSessionWorktree(
  ctx: LanesContext,
  options: {
    ticket?: string | null;
    label?: string | null;
    base?: string | null;
    by?: string;
    /**
     * Work of the caller's that needs the path but not the files (reading, preparing), run while
     * git checks the files out: on two cores the checkout is mostly waiting for git. Nothing it does
     * may outlast a failed checkout; its error fails the start after the checkout (then discarded).
     */
    whileCheckingOut?: (path: string) => Promise<void>;
  },
): Promise<CreatedWorktree> {
  const repo = await ctx.repo();
  if (!repo)
    throw new LanesError('E_USAGE', `--worktree needs a git repository, and ${ctx.cwd} is not inside one`, {
      hint: 'run it inside the repository',
    });
  const base = options.base ? await revParse(ctx.cwd, options.base) : 'HEAD';
  if (!base) {
    throw new LanesError(
      'E_USAGE',
      options.base
        ? `--base ${options.base} is not a commit of this repository`
        : 'the repository has no commits yet to base a worktree on',
      {
        hint: options.base ? 'name a branch, tag or commit (git log --oneline)' : 'make a first commit',
      },
    );
  }
  const mainRoot = basename(repo.commonDir) === '.git' ? dirname(repo.commonDir) : repo.worktreeRoot;
  // Read before the worktree exists: a config error must not leave a half-made worktree behind.
  const { worktree } = await loadConfig(ctx, mainRoot);
  const root = await lanesWorktreeDir(ctx.cwd, repo.commonDir);
  const stem = slugify(options.ticket ?? options.label ?? 'session');
  for (let i = 1; i < 1000; i++) {
    const slug = i === 1 ? stem : `${stem}-${i}`;
    const path = join(root, slug);
    const branch = `lanes/${slug}`;
    if (existsSync(path)) continue;
    // `-b` refuses an existing branch, so git itself checks the name is free (one call, no race).
    const checkout = addWorktree(ctx.cwd, path, branch, base);
    const beside = options.whileCheckingOut?.(path);
    // Settled whatever the checkout does: a failure of the work beside is said after the checkout.
    const besideDone = beside?.then(
      () => null,
      (e: unknown) => ({ e }),
    );
    try {
      await checkout;
    } catch (e) {
      await besideDone;
      if (existsSync(path) || (await branchExists(ctx.cwd, branch))) continue;
      if (!options.base && !(await revParse(ctx.cwd, 'HEAD'))) {
        throw new LanesError('E_USAGE', 'the repository has no commits yet to base a worktree on', {
          hint: 'make a first commit',
        });
      }
      throw e;
    }
    const besideFailed = await besideDone;
    if (besideFailed) {
      await discardSessionWorktree(ctx, { path, branch }).catch(() => undefined);
      throw besideFailed.e;
    }
    // What lets cleanup (lanes gc --worktrees) tell lanes' worktrees from anyone else's.
    try {
      markMadeByLanes(path, {
        by: options.by ?? 'lanes start --worktree',
        branch,
        createdAt: Date.now(),
        store: ctx.store.info.location,
        path: realpathSync(path),
      });
    } catch (e) {
      await discardSessionWorktree(ctx, { path, branch }).catch(() => undefined);
      throw e;
    }
    // A copy that fails leaves no half-made worktree behind.
    const included = await copyWorktreeIncludes(mainRoot, path, { linksOutside: worktree.includeLinksOutside }).catch(
      async (e: unknown) => {
        await discardSessionWorktree(ctx, { path, branch }).catch(() => undefined);
        throw e;
      },
    );
    return { path, branch, slug, base, included };
  }
  throw new LanesError('E_USAGE', `no free worktree name for ${stem}`, {
    hint: 'remove old worktrees (git worktree list) or pass another --ticket/--label',
  });
}

/**
 * Removes a worktree made by createSessionWorktree that no session took (its start was refused):
 * nothing of anyone's is in it but what .worktreeinclude copied, so it goes with its branch.
 */
export async function discardSessionWorktree(
  ctx: LanesContext,
  made: Pick<CreatedWorktree, 'path' | 'branch'>,
): Promise<void> {
  await removeWorktree(ctx.cwd, made.path, true);
  await deleteBranch(ctx.cwd, made.branch, true);
  // The <repo>.lanes directory, when this was its only worktree: nothing of a refused start stays.
  try {
    rmdirSync(dirname(made.path));
  } catch {
    // others are in it (or it is gone)
  }
}
