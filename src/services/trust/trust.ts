import { readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { validateConfig } from '../../core/config.js';
import { contentHash, runnablesOf } from '../../core/config-trust.js';
import type { Runnable } from '../../core/config-trust.js';
import { LanesError } from '../../core/errors.js';
import { AGENT_SESSION_ENV } from '../../core/hook-event.js';
import { git } from '../../git/run.js';
import { parseSource } from '../config.js';
import type { LanesContext } from '../context.js';
import { actingSession } from '../sessions/acting.js';
import { listTrust, recordTrust, repositoryOf, trustRecordOf } from './approvals.js';
import type { TrustRecord, TrustState } from './approvals.js';

// `lanes allow`, `lanes deny`: the user's word on one repository's lanes.toml, as it is now (or as
// a revision has it, for a worktree about to be made from that revision with --base).

/** A lanes.toml to allow or deny: where, which repository, its exact text and what it runs. */
export interface TrustTarget {
  file: string;
  repository: string;
  /** `--rev REV`: read from this revision's tree, not from the file on disk. */
  rev: string | null;
  sha256: string;
  runs: Runnable[];
  state: TrustState;
  /** When the user last allowed or denied this content. */
  since: string | null;
}

export interface TrustApi {
  /** The lanes.toml at `path` (a file or a worktree; default: this worktree's), or a revision's. */
  show(o?: { path?: string; rev?: string }): Promise<TrustTarget>;
  /** Records the approval of that exact content (refused in an agent's session). */
  allow(o?: { path?: string; rev?: string }): Promise<TrustTarget>;
  /** Records a denial (the commands are refused, and named, until allowed). */
  deny(o?: { path?: string; rev?: string }): Promise<TrustTarget>;
  /** Every approval and denial this user made. */
  list(): Promise<(TrustRecord & { state: TrustState })[]>;
}

export function trustApi(ctx: LanesContext): TrustApi {
  const read = async (o: { path?: string; rev?: string } = {}) => {
    const { file, text, rev } = await locate(ctx, o);
    const repository = repositoryOf(dirname(file));
    const runs = runnablesOf(validateConfig(await parseSource(rev ? `${rev}:lanes.toml` : file, text)));
    return { file, text, rev, repository, runs };
  };
  const view = (t: Awaited<ReturnType<typeof read>>): TrustTarget => {
    const rec = trustRecordOf(ctx.env, t.repository, t.text);
    return {
      file: t.file,
      repository: t.repository,
      rev: t.rev,
      sha256: contentHash(t.text),
      runs: t.runs,
      state: rec?.state ?? 'unknown',
      since: rec?.at ?? null,
    };
  };
  const word = async (state: 'allowed' | 'denied', o: { path?: string; rev?: string } = {}) => {
    const t = await read(o);
    if (state === 'allowed') await refuseAgents(ctx);
    if (t.runs.length === 0) return view(t);
    recordTrust(
      ctx.env,
      state,
      { file: t.file, repository: t.repository, runs: t.runs, ...(t.rev ? { rev: t.rev } : {}) },
      t.text,
    );
    await ctx.journal
      .record({
        kind: state === 'allowed' ? 'trust.allow' : 'trust.deny',
        subject: t.rev ? `${t.rev}:lanes.toml` : t.file,
        session: ctx.sessionId,
        details: { sha256: contentHash(t.text), repository: t.repository, runs: t.runs.map((r) => r.key) },
      })
      .catch(() => undefined);
    return view(t);
  };
  return {
    show: async (o) => view(await read(o)),
    allow: (o) => word('allowed', o),
    deny: (o) => word('denied', o),
    list: () => Promise.resolve(listTrust(ctx.env)),
  };
}

async function locate(
  ctx: LanesContext,
  o: { path?: string; rev?: string },
): Promise<{ file: string; text: string; rev: string | null }> {
  if (o.rev !== undefined) {
    const repo = await ctx.repo();
    if (!repo)
      throw new LanesError('E_USAGE', `--rev needs a git repository, and ${ctx.cwd} is not inside one`, {
        hint: 'run it inside the repository',
      });
    if (o.rev === '' || o.rev.startsWith('-'))
      throw new LanesError('E_USAGE', `--rev ${JSON.stringify(o.rev)} is not a revision`, {
        hint: 'name a branch, tag or commit, such as origin/pr-12',
      });
    // The blob's own bytes (cat-file: no textconv), what a worktree made from the revision holds.
    const text = await git(['cat-file', 'blob', `${o.rev}:lanes.toml`], { cwd: repo.worktreeRoot }).catch(() => null);
    if (text === null)
      throw new LanesError('E_NOT_FOUND', `${o.rev} has no lanes.toml (or is no revision of this repository)`, {
        hint: `check it with git show ${o.rev}:lanes.toml`,
      });
    // Kept under the name lanes reads it by: a worktree made from the revision has it at its root.
    return { file: join(repo.worktreeRoot, 'lanes.toml'), text, rev: o.rev };
  }
  const given = o.path !== undefined ? resolve(ctx.cwd, o.path) : ((await ctx.repo())?.worktreeRoot ?? null);
  if (!given)
    throw new LanesError('E_USAGE', `${ctx.cwd} is in no git repository: name the lanes.toml to allow`, {
      hint: 'lanes allow PATH/lanes.toml',
    });
  let isDir = false;
  try {
    isDir = statSync(given).isDirectory();
  } catch {
    throw new LanesError('E_NOT_FOUND', `${given} does not exist`, {
      hint: 'name a lanes.toml, or the worktree it is in',
    });
  }
  const file = isDir ? join(given, 'lanes.toml') : given;
  if (basename(file) !== 'lanes.toml')
    throw new LanesError('E_USAGE', `${file} is not a lanes.toml: lanes reads only a file of that name`, {
      hint: 'name the lanes.toml at the root of a worktree',
    });
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new LanesError(
      'E_NOT_FOUND',
      `${file}: ${code === 'ENOENT' ? 'no such file' : (code ?? (e as Error).message)}`,
      {
        hint:
          code === 'ENOENT' ? 'this worktree has no lanes.toml: nothing of it needs allowing' : 'check its permissions',
      },
    );
  }
  return { file, text, rev: null };
}

/**
 * An agent cannot approve what its own repository runs: refused in an agent's session (the acting
 * session is an agent's, a lanes wrapper started this process' agent, or an agent names its session
 * in the environment), whatever the terminal.
 */
async function refuseAgents(ctx: LanesContext): Promise<void> {
  const named = AGENT_SESSION_ENV.find(([k]) => ctx.env[k]) ?? null;
  const acting = await actingSession(ctx, ctx.env['LANES_SESSION'] || null).catch(() => null);
  const s = acting ? await ctx.store.getSession(acting.id).catch(() => null) : null;
  const agent =
    s?.agent ??
    (ctx.env['LANES_RUN'] ? 'the agent lanes started' : null) ??
    named?.[1] ??
    (ctx.env['CLAUDECODE'] ? 'claude-code' : null);
  if (!agent) return;
  throw new LanesError(
    'E_UNTRUSTED',
    `lanes allow runs only in a person's shell, and this is ${s ? `session ${s.id} of ${agent}` : `a shell of ${agent}`}: an agent cannot approve what its repository runs`,
    { hint: 'read the file, then run lanes allow in a terminal of your own (not one an agent started)' },
  );
}
