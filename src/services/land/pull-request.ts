import { existsSync } from 'node:fs';
import { LanesError } from '../../core/errors.js';
import { strippedSecrets } from '../../core/redact.js';
import { fetchTip, pushWithLease, remoteOf, remoteTip } from '../../git/push.js';
import { git } from '../../git/run.js';
import { defaultBranch, isAncestor, revParse } from '../../git/worktree.js';
import type { SessionRecord } from '../../store/types.js';
import { loadConfig } from '../config.js';
import type { LanesContext } from '../context.js';
import { describeSession } from '../describe.js';
import { ghCreatePr, runGh } from './gh.js';
import { prText } from './pr-body.js';
import { describeCommit, hasCommit } from './push.js';
import { branchOfSession, repoOfSession } from './queue.js';

// `lanes pr S|TICKET` (issue 49, item 4): the session's branch pushed to the remote (leased: a
// remote branch someone else moved is a refusal naming them, never an overwrite), then a pull
// request opened with gh, its title and body from the session's record (pr-body.ts), its URL
// journaled on the session (`pr`): the report, `lanes top` and the page show it with its checks.

export interface PrOptions {
  base?: string;
  remote?: string;
  title?: string;
  draft?: boolean;
  /** Write the title and body, push and open nothing. */
  dryRun?: boolean;
  force?: boolean;
  live: boolean;
}

export interface PrResult {
  session: string;
  ticket: string | null;
  branch: string;
  base: string;
  remote: string;
  head: string;
  title: string;
  body: string;
  commits: number;
  /** Files changed in its worktree and not committed: not in the pull request. */
  uncommitted: number;
  /** The remote's branch before the push (null: it had none); null push: a dry run. */
  push: { from: string | null; to: string } | null;
  url: string | null;
  /** gh found the pull request open already: the push updated it. */
  existed: boolean;
}

async function uncommittedIn(s: SessionRecord): Promise<number> {
  if (!s.worktree || !existsSync(s.worktree)) return 0;
  const out = await git(['status', '--porcelain', '-z', '--untracked-files=all'], { cwd: s.worktree }).catch(() => '');
  return out.split('\0').filter((l) => /^.. /.test(l)).length;
}

export async function openPullRequest(ctx: LanesContext, s: SessionRecord, o: PrOptions): Promise<PrResult> {
  if (ctx.sessionId && ctx.sessionId !== s.id && o.live && !o.force)
    throw new LanesError(
      'E_NOT_YOURS',
      `${describeSession(s)} is live and not this session: it publishes its own work`,
      {
        hint: `its agent runs \`lanes pr\`, or a person does; --force opens it from here (journaled as by ${ctx.sessionId})`,
      },
    );
  const repo = await repoOfSession(ctx, s);
  const root = repo.worktreeRoot;
  const branch = await branchOfSession(s, repo);
  if (!branch)
    throw new LanesError('E_NOT_FOUND', `${describeSession(s)} has no branch of its own to open a pull request for`, {
      hint: 'sessions started with --worktree (lanes new, lanes start --worktree) work on a branch of their own',
    });
  const base = o.base ?? (await defaultBranch(root));
  if (!base || !(await revParse(root, `refs/heads/${base}`)))
    throw new LanesError('E_USAGE', `no base branch ${base ?? ''} here`.trim(), { hint: 'pass --base BRANCH' });
  const head = await revParse(root, `refs/heads/${branch}`);
  if (!head || (await isAncestor(root, head, `refs/heads/${base}`)))
    throw new LanesError(
      'E_NOT_FOUND',
      `nothing to open a pull request for: ${base} already has everything on ${branch}`,
      {
        hint: 'commit the work first (lanes commit -m … -- PATHS)',
      },
    );
  const remote = o.remote ?? (await remoteOf(root, base));
  if (!remote || !(await git(['remote'], { cwd: root })).split('\n').includes(remote))
    throw new LanesError(
      'E_USAGE',
      `no remote ${o.remote ? JSON.stringify(o.remote) : `for ${base} (nor origin)`} in this repository`,
      {
        hint: 'add one (git remote add origin URL) or name it: --remote NAME',
      },
    );
  // Where a push goes (pushurl, pushInsteadOf): the lease is read there, not from the fetch URL.
  const pushUrl = (await git(['remote', 'get-url', '--push', remote], { cwd: root })).trim();
  const from = await remoteTip(root, pushUrl, branch);
  if (from && from !== head && (!(await hasCommit(root, from)) || !(await isAncestor(root, from, head)))) {
    await fetchTip(root, pushUrl, branch);
    throw new LanesError(
      'E_FLAGGED',
      `${remote}'s ${branch} has commits this branch lacks (it is at ${await describeCommit(root, from)}): nothing was pushed`,
      { hint: `someone else pushed to ${branch}: look (git log FETCH_HEAD), bring it in, then lanes pr again` },
    );
  }
  const strip = await loadConfig(ctx, root).then(
    (c) => c.env.strip,
    () => [] as string[],
  );
  const text = await prText(ctx, s, {
    cwd: root,
    base,
    branch,
    secrets: strippedSecrets(ctx.env, strip),
    ...(o.title ? { title: o.title } : {}),
  });
  const result: PrResult = {
    ...{ session: s.id, ticket: s.ticket, branch, base, remote, head },
    ...{ title: text.title, body: text.body, commits: text.commits, uncommitted: await uncommittedIn(s) },
    ...{ push: null, url: null, existed: false },
  };
  if (o.dryRun) return result;
  await runGh(['--version'], { cwd: root, env: ctx.env }); // installed, before anything is pushed
  if (from !== head) {
    const pushed = await pushWithLease(root, remote, branch, from);
    if (!pushed.ok) {
      const now = await fetchTip(root, pushUrl, branch);
      throw new LanesError(
        'E_FLAGGED',
        `${remote}'s ${branch} moved while lanes pushed: ${now ? `it is at ${await describeCommit(root, now)}` : 'it is gone'}; nothing was overwritten`,
        { hint: 'look at what moved it, then lanes pr again', details: { git: pushed.why } },
      );
    }
  }
  result.push = { from, to: head };
  const created = await ghCreatePr(root, {
    base,
    head: branch,
    title: text.title,
    body: text.body,
    draft: o.draft === true,
    env: ctx.env,
  }).catch((e: unknown) => {
    if (!(e instanceof LanesError)) throw e;
    throw new LanesError(e.code, `${e.message} (${branch} is pushed to ${remote}; no pull request was opened)`, {
      ...(e.hint ? { hint: e.hint } : {}),
    });
  });
  result.url = created.url;
  result.existed = created.existed;
  await ctx.store.appendJournal([
    {
      ...{ kind: 'pr', subject: s.id, session: s.id, repo: ctx.repoId(repo), ticket: s.ticket },
      details: {
        url: created.url,
        existed: created.existed,
        branch,
        base,
        remote,
        head,
        from,
        by: ctx.sessionId ?? `pid ${process.pid}`,
      },
    },
  ]);
  return result;
}
