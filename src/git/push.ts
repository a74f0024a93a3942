import { git, GitError } from './run.js';

// Publishing a branch to a remote only where the remote still is where lanes saw it (issue 49,
// item 4): `git push --force-with-lease=REF:EXPECTED` makes the remote itself compare and swap, so
// a remote moved by anyone since is a refusal, never an overwrite.

/** The remote a branch is pushed to: its configured upstream's, else `origin`; null when the repository has neither. */
export async function remoteOf(cwd: string, branch: string): Promise<string | null> {
  const configured = await git(['config', '--get', `branch.${branch}.remote`], { cwd }).catch(() => '');
  const remotes = (await git(['remote'], { cwd }).catch(() => '')).split('\n').filter(Boolean);
  const name = configured.trim() || 'origin';
  return remotes.includes(name) ? name : null;
}

/** Where the remote's branch is now (one `git ls-remote`), null when it has no such branch. */
export async function remoteTip(cwd: string, remote: string, branch: string): Promise<string | null> {
  const out = await git(['ls-remote', '--refs', '--', remote, `refs/heads/${branch}`], { cwd });
  const line = out.split('\n').find((l) => l.endsWith(`\trefs/heads/${branch}`));
  return line ? line.split('\t')[0]! : null;
}

/** The remote's branch fetched (into FETCH_HEAD only: no ref of the repository moves), its tip. */
export async function fetchTip(cwd: string, remote: string, branch: string): Promise<string | null> {
  try {
    await git(['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--', remote, `refs/heads/${branch}`], {
      cwd,
    });
  } catch {
    return null;
  }
  return remoteTip(cwd, remote, branch);
}

export type LeasedPush = { ok: true } | { ok: false; why: string };

/** Pushes the local branch only if the remote's is still `expected` (null: the remote has no such branch yet). */
export async function pushWithLease(
  cwd: string,
  remote: string,
  branch: string,
  expected: string | null,
): Promise<LeasedPush> {
  const ref = `refs/heads/${branch}`;
  try {
    await git(['push', '--porcelain', `--force-with-lease=${ref}:${expected ?? ''}`, '--', remote, `${ref}:${ref}`], {
      cwd,
    });
    return { ok: true };
  } catch (e) {
    if (!(e instanceof GitError)) throw e;
    const said = `${e.stdout}\n${e.stderr}`
      .split('\n')
      .filter((l) => l.startsWith('!') || /rejected|stale|error/.test(l));
    return { ok: false, why: said.join(' ').trim() || e.message };
  }
}
