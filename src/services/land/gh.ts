import { childProcess } from '../../core/builtins.js';
import { LanesError } from '../../core/errors.js';

// The GitHub CLI, `gh`, as `lanes pr` drives it (issue 49, item 4): lanes pushes the branch itself
// (with a lease), then asks gh to open the pull request and, later, for its state. gh resolves
// the repository, the host and the login from the repository's remotes and its own config, as it
// does for the user; lanes adds nothing of its own (no token is read, passed or kept).

export interface GhResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** gh's exit code when it needs a login (cli/cli: cmdutil.ErrAuthRequired → 4). */
const AUTH_REQUIRED = 4;
const TIMEOUT_MS = 60_000;

export function runGh(
  args: string[],
  o: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<GhResult> {
  return new Promise((resolve, reject) => {
    childProcess().execFile(
      'gh',
      args,
      {
        cwd: o.cwd,
        // Never a prompt nor a pager: lanes reads what gh says.
        env: {
          ...(o.env ?? process.env),
          GH_PROMPT_DISABLED: '1',
          GH_PAGER: 'cat',
          NO_COLOR: '1',
          GH_NO_UPDATE_NOTIFIER: '1',
        },
        timeout: o.timeoutMs ?? TIMEOUT_MS,
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const e = error as { code?: unknown; killed?: boolean } | null;
        if (e?.code === 'ENOENT')
          return reject(
            new LanesError('E_GH', 'the GitHub CLI (gh) is not installed: lanes pr opens pull requests with it', {
              hint: 'install it (https://cli.github.com, or apt-get install gh), then gh auth login',
            }),
          );
        if (e?.killed)
          return reject(
            new LanesError(
              'E_GH',
              `gh ${args.slice(0, 2).join(' ')} did not answer in ${Math.round((o.timeoutMs ?? TIMEOUT_MS) / 1000)} s`,
            ),
          );
        const code: number = e ? (typeof e.code === 'number' ? e.code : 1) : 0;
        if (code === AUTH_REQUIRED)
          return reject(
            new LanesError('E_GH', 'gh is not logged in to GitHub: lanes pr opens pull requests as your gh login', {
              hint: 'run gh auth login (or set GH_TOKEN), then lanes pr again',
            }),
          );
        resolve({ code, stdout: String(stdout), stderr: String(stderr) });
      },
    );
  });
}

/** The last line of gh's words (its errors end with the reason). */
export function ghSaid(r: GhResult): string {
  return (r.stderr.trim() || r.stdout.trim()).split('\n').filter(Boolean).slice(-3).join(' ').slice(0, 500);
}

const PR_URL = /https?:\/\/\S+\/pull\/\d+/;

export interface CreatedPr {
  url: string;
  /** gh found an open pull request of this branch already (nothing was created). */
  existed: boolean;
}

/** `gh pr create`: the branch must be pushed already (lanes does it, leased). */
export async function ghCreatePr(
  cwd: string,
  o: { base: string; head: string; title: string; body: string; draft: boolean; env?: NodeJS.ProcessEnv },
): Promise<CreatedPr> {
  const args = ['pr', 'create', '--base', o.base, '--head', o.head, '--title', o.title, '--body', o.body];
  const r = await runGh(o.draft ? [...args, '--draft'] : args, { cwd, ...(o.env ? { env: o.env } : {}) });
  const url = PR_URL.exec(r.stdout)?.[0] ?? null;
  if (r.code === 0 && url) return { url, existed: false };
  // "a pull request for branch "X" into branch "main" already exists:\nURL"
  const existing = /already exists/.test(r.stderr) ? PR_URL.exec(r.stderr)?.[0] : null;
  if (existing) return { url: existing, existed: true };
  throw new LanesError('E_GH', `gh pr create failed: ${ghSaid(r)}`, {
    hint: 'gh resolves the repository from the remotes: gh repo set-default OWNER/REPO picks one',
    details: { exit: r.code },
  });
}
