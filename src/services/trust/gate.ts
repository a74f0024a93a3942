import { dirname } from 'node:path';
import { contentHash } from '../../core/config-trust.js';
import type { Runnable } from '../../core/config-trust.js';
import { LanesError } from '../../core/errors.js';
import { shellWord } from '../../core/shell-quote.js';
import type { LoadedConfig, RepoConfigFile } from '../config.js';
import type { LanesContext } from '../context.js';
import { repositoryOf, trustStateOf } from './approvals.js';
import type { TrustState } from './approvals.js';

// The one gate every door passes before a repository's lanes.toml runs or sets anything (issue 46):
// the start of a session in a worktree of its own (its setup, before anything is made), the setup
// and teardown themselves, and the environment of `lanes exec`, `lanes env` and a started agent.
// The content checked is the content that runs: the gate reads the same parsed file the caller
// then uses, so a file changed between the two is not what was allowed.

export interface Blocked {
  file: string;
  state: TrustState;
  runs: Runnable[];
  sha256: string;
}

/** What of `kinds` the repository's file would run that the user has not allowed; null when nothing. */
export function blockedBy(
  env: Record<string, string | undefined>,
  repoFile: RepoConfigFile | null,
  kinds: readonly Runnable['kind'][],
): Blocked | null {
  if (!repoFile) return null;
  const runs = repoFile.runs.filter((r) => kinds.includes(r.kind));
  if (runs.length === 0) return null;
  const state = trustStateOf(env, repositoryOf(dirname(repoFile.file)), repoFile.text);
  if (state === 'allowed') return null;
  return { file: repoFile.file, state, runs, sha256: contentHash(repoFile.text) };
}

/** `[session] setup \`make db\`` and the like, for one line. */
export function describeRuns(runs: Runnable[]): string {
  const cut = (v: string) => (v.length > 60 ? `${v.slice(0, 57)}...` : v);
  const shown = runs.slice(0, 3).map((r) => `${r.key} = ${JSON.stringify(cut(r.value))}`);
  return `${shown.join(', ')}${runs.length > 3 ? ` and ${runs.length - 3} more` : ''}`;
}

/** The command that allows it: the file, or (content read from a revision) `--rev`. */
export function allowCommand(b: Blocked, rev?: string | null): string {
  return rev ? `lanes allow --rev ${shellWord(rev)}` : `lanes allow ${shellWord(b.file)}`;
}

/** Where the user finds the content to read and allow, when not at `Blocked.file`. */
export interface ShownAs {
  /** It was read from this revision's tree (`--base REV`): allowed with `lanes allow --rev REV`. */
  rev?: string | null;
  /** The same content at this path (the main worktree's lanes.toml of a worktree about to be removed). */
  file?: string;
}

export function blockedError(blocked: Blocked, doing: string, shown: ShownAs = {}): LanesError {
  const b = shown.file ? { ...blocked, file: shown.file } : blocked;
  const rev = shown.rev ?? null;
  const whose = rev ? `the lanes.toml of ${rev}` : b.file;
  const said = b.state === 'denied' ? 'you denied it (lanes deny)' : 'you have not allowed it';
  return new LanesError(
    'E_UNTRUSTED',
    `${doing} would run what ${whose} says (${describeRuns(b.runs)}), and ${said}: a repository's commands run only once you allowed that exact content (sha256 ${b.sha256.slice(0, 12)})`,
    {
      hint: `read it${rev ? ` (git show ${shellWord(rev)}:lanes.toml)` : ''}, then run \`${allowCommand(b, rev)}\` in a shell of your own`,
      details: { file: b.file, state: b.state, sha256: b.sha256, runs: b.runs, ...(rev ? { rev } : {}) },
    },
  );
}

/**
 * Throws E_UNTRUSTED (nothing run, journaled as trust.refuse) when `config`'s repository file would
 * run or set something of `kinds` the user has not allowed.
 */
export async function requireAllowed(
  ctx: LanesContext,
  config: Pick<LoadedConfig, 'repoFile'>,
  kinds: readonly Runnable['kind'][],
  doing: string,
  shown: ShownAs = {},
): Promise<void> {
  const b = blockedBy(ctx.env, config.repoFile, kinds);
  if (!b) return;
  await ctx.journal
    .record({
      kind: 'trust.refuse',
      subject: b.file,
      session: ctx.sessionId,
      details: { doing, state: b.state, sha256: b.sha256, runs: b.runs.map((r) => r.key) },
    })
    .catch(() => undefined);
  throw blockedError(b, doing, shown);
}
