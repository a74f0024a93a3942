import { LanesError } from '../../core/errors.js';
import { platform } from '../../core/platform/select.js';
import { defaultBranch } from '../../git/worktree.js';
import type { SessionRecord } from '../../store/types.js';
import type { LanesContext } from '../context.js';
import type { EndOptions } from '../sessions/end-session.js';
import type { SnapshotService } from '../snapshots/snapshots.js';
import { removeWorktreeSafely } from './remove-safely.js';
import type { Removal } from './remove-safely.js';
import { linkedAt, readScene } from './worktree-facts.js';

/**
 * `lanes end --remove-worktree`: the worktree of the session just ended, which a person named.
 * The rules of may-delete.ts hold but one: lanes need not have made it. The shell that asked
 * (this process' ancestors) may stand in it; any other process or live session keeps it. A
 * refusal is an error naming the rule, after the end (the session has ended either way).
 */
export async function removeNamedWorktree(
  ctx: LanesContext,
  snapshots: SnapshotService,
  s: SessionRecord,
  wt: string,
  options: EndOptions,
): Promise<Removal> {
  // The session's repository, wherever the command runs (lanes end from /tmp, or from another repository).
  const scene = await readScene(ctx, { openOnly: true, also: [s], at: wt });
  const entry = linkedAt(scene, wt);
  if (!entry)
    throw new LanesError('E_USAGE', `${wt} is the repository's main worktree; lanes removes only linked worktrees`, {
      hint: 'omit --remove-worktree',
    });
  const asker = platform()?.lineage(process.pid, 64, false) ?? [];
  const removal = await removeWorktreeSafely(ctx, snapshots, scene, entry, {
    owner: s.id,
    reason: options.reason ?? 'lanes end --remove-worktree',
    ignore: { sessions: new Set([s.id]), pids: new Set(asker.map((p) => p.pid)) },
    mainBranch: await defaultBranch(scene.mainWorktree),
    forceBranch: options.force === true,
    named: true,
    // A person named it: its ignored files go with it, as `git worktree remove --force` does.
    ignored: 'delete',
  });
  if (removal.refused) {
    const { rule, why } = removal.refused;
    const hint =
      rule === 'cannot-save'
        ? 'move it out of the worktree (or commit it where it belongs), then remove the worktree with git worktree remove'
        : rule === 'changed-while-saving'
          ? `run \`lanes snapshot --session ${s.id}\` and try again`
          : rule === 'contains-repository'
            ? 'omit --remove-worktree'
            : rule === 'locked'
              ? `see why with \`git worktree list --verbose\`; \`git worktree unlock ${wt}\` if that lock is stale`
              : rule === 'operation-in-progress'
                ? 'finish or abort it in the worktree (git rebase --abort, git merge --abort, …), then remove it'
                : 'end what still works there first, then remove it with `lanes gc --worktrees`';
    throw new LanesError('E_REPO_STATE', `not removing ${wt}: ${why}`, { hint, details: { rule } });
  }
  return removal;
}
