import { LanesError } from '../../core/errors.js';
import { git } from '../../git/run.js';
import { fetchTip, pushWithLease, remoteOf, remoteTip } from '../../git/push.js';
import { defaultBranch, isAncestor, revParse } from '../../git/worktree.js';
import type { LanesContext } from '../context.js';

// `lanes land --push` (issue 49, item 4): the target goes to its remote only if the remote still
// points where lanes based the landing. The remote's tip is read before anything lands (a remote
// with commits the target here lacks refuses at once: nothing landed, nothing pushed); the push
// then leases exactly that tip, so whoever moved the remote in between is named, never overwritten.

/** The remote's tip a landing was based on. */
export interface RemoteLease {
  remote: string;
  target: string;
  /** The remote's tip when read (null: it had no such branch). */
  base: string | null;
}

export interface PushResult {
  remote: string;
  target: string;
  from: string | null;
  to: string;
}

export async function describeCommit(cwd: string, sha: string): Promise<string> {
  const said = await git(['log', '-1', '--format=%cn <%ce>, %cI: %s', sha], { cwd }).catch(() => '');
  return said.trim() ? `${sha.slice(0, 10)}, committed by ${said.trim()}` : sha.slice(0, 10);
}

export async function hasCommit(cwd: string, sha: string): Promise<boolean> {
  return git(['cat-file', '-e', `${sha}^{commit}`], { cwd }).then(
    () => true,
    () => false,
  );
}

export async function leaseRemote(ctx: LanesContext, o: { into?: string; remote?: string } = {}): Promise<RemoteLease> {
  const repo = await ctx.repo();
  if (!repo) throw new LanesError('E_USAGE', `${ctx.cwd} is not inside a git repository`);
  const root = repo.worktreeRoot;
  const target = o.into ?? (await defaultBranch(root));
  if (!target) throw new LanesError('E_USAGE', 'no target branch found', { hint: 'pass --into BRANCH' });
  const remote = o.remote ?? (await remoteOf(root, target));
  if (!remote || !(await isRemote(root, remote)))
    throw new LanesError(
      'E_USAGE',
      `no remote ${o.remote ? JSON.stringify(o.remote) : `for ${target} (nor origin)`} in this repository`,
      {
        hint: 'add one (git remote add origin URL) or name it: --remote NAME',
      },
    );
  const base = await remoteTip(root, remote, target);
  const local = await revParse(root, `refs/heads/${target}`);
  if (base && (!local || !(await hasCommit(root, base)) || !(await isAncestor(root, base, local)))) {
    await fetchTip(root, remote, target);
    throw new LanesError(
      'E_FLAGGED',
      `${remote}'s ${target} has commits ${target} here lacks (it is at ${await describeCommit(root, base)}): nothing was landed or pushed`,
      {
        hint: `bring them in first (git pull --ff-only ${remote} ${target} in the worktree of ${target}), then land again`,
      },
    );
  }
  return { remote, target, base };
}

async function isRemote(cwd: string, name: string): Promise<boolean> {
  return (await git(['remote'], { cwd }).catch(() => '')).split('\n').includes(name);
}

/** Pushes the target as landed, leasing the remote's tip the landing was based on; journaled either way. */
export async function pushLanded(ctx: LanesContext, lease: RemoteLease): Promise<PushResult> {
  const repo = await ctx.repo();
  if (!repo) throw new LanesError('E_USAGE', `${ctx.cwd} is not inside a git repository`);
  const root = repo.worktreeRoot;
  const to = await revParse(root, `refs/heads/${lease.target}`);
  if (!to) throw new LanesError('E_USAGE', `branch ${lease.target} has no commits`);
  const repoId = ctx.repoId(repo);
  const pushed = await pushWithLease(root, lease.remote, lease.target, lease.base);
  if (pushed.ok) {
    await ctx.journal.record({
      ...{ kind: 'land.push', subject: lease.target, repo: repoId },
      details: { remote: lease.remote, from: lease.base, to },
    });
    return { remote: lease.remote, target: lease.target, from: lease.base, to };
  }
  const now = await fetchTip(root, lease.remote, lease.target);
  const moved = now ? `it is at ${await describeCommit(root, now)}` : `it has no ${lease.target} now`;
  const message = `${lease.remote}'s ${lease.target} moved since lanes based the landing on ${lease.base?.slice(0, 10) ?? 'its absence'}: ${moved}; nothing was overwritten`;
  await ctx.journal.record({
    ...{ kind: 'land.refuse', subject: `push ${lease.remote} ${lease.target}`, repo: repoId },
    details: { message, remote: lease.remote, base: lease.base, now, git: pushed.why },
  });
  throw new LanesError('E_FLAGGED', message, {
    hint: `${lease.target} here holds the landing and ${lease.remote} does not: bring in what moved it (git pull ${lease.remote} ${lease.target}) and push again`,
    details: { remote: lease.remote, base: lease.base, now },
  });
}
