import {
  existsSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { contentHash, trustKey } from '../../core/config-trust.js';
import type { Runnable } from '../../core/config-trust.js';
import { lanesHome } from '../../core/paths.js';
import { ensurePrivateDir } from '../../core/private-dir.js';

// The user's approvals of repositories' lanes.toml, as `direnv allow` keeps its own: in the user's
// state ($LANES_HOME/trust, 0700), never in the repository (a repository cannot approve itself)
// nor in the store (a team store is shared: one user's approval is not another's). A file per
// approval or denial, named by its key (core/config-trust.ts), holding what was shown.

export type TrustState = 'allowed' | 'denied' | 'unknown';

export interface TrustRecord {
  /** The lanes.toml it was given for, and the repository (git common directory). */
  file: string;
  repository: string;
  sha256: string;
  runs: Runnable[];
  at: string;
  /** `lanes allow --rev REV`: the revision it was read from. */
  rev?: string;
}

type Env = Record<string, string | undefined>;

const dirOf = (env: Env, state: 'allowed' | 'denied') => join(lanesHome(env), 'trust', state);

/**
 * The repository a lanes.toml at `root` belongs to: its git common directory, read from the
 * worktree's `.git` without running git (a main worktree's `.git` directory; a linked worktree's
 * `gitdir:` file and that directory's `commondir`). Outside git: the directory itself.
 */
export function repositoryOf(root: string): string {
  const dotGit = join(root, '.git');
  const real = (p: string) => {
    try {
      return realpathSync(p);
    } catch {
      return resolve(p);
    }
  };
  let st;
  try {
    st = statSync(dotGit);
  } catch {
    return real(root);
  }
  if (st.isDirectory()) return real(dotGit);
  const m = /^gitdir: (.+)$/m.exec(readFileSync(dotGit, 'utf8'));
  if (!m) return real(root);
  const gitDir = isAbsolute(m[1]!.trim()) ? m[1]!.trim() : resolve(root, m[1]!.trim());
  try {
    const common = readFileSync(join(gitDir, 'commondir'), 'utf8').trim();
    return real(isAbsolute(common) ? common : resolve(gitDir, common));
  } catch {
    return real(gitDir);
  }
}

/** Whether the user allowed (or denied) this exact text of a lanes.toml of `repository`. */
export function trustStateOf(env: Env, repository: string, text: string): TrustState {
  const key = trustKey(repository, text);
  if (existsSync(join(dirOf(env, 'denied'), key))) return 'denied';
  if (existsSync(join(dirOf(env, 'allowed'), key))) return 'allowed';
  return 'unknown';
}

/** The record of an approval or denial, or null. */
export function trustRecordOf(
  env: Env,
  repository: string,
  text: string,
): (TrustRecord & { state: TrustState }) | null {
  const key = trustKey(repository, text);
  for (const state of ['denied', 'allowed'] as const) {
    try {
      return { ...(JSON.parse(readFileSync(join(dirOf(env, state), key), 'utf8')) as TrustRecord), state };
    } catch {
      // none of this kind
    }
  }
  return null;
}

/** Records the user's word on this text: an approval replaces a denial and the other way round. */
export function recordTrust(
  env: Env,
  state: 'allowed' | 'denied',
  record: Omit<TrustRecord, 'sha256' | 'at'>,
  text: string,
): TrustRecord {
  const key = trustKey(record.repository, text);
  const full: TrustRecord = { ...record, sha256: contentHash(text), at: new Date().toISOString() };
  const dir = ensurePrivateDir(dirOf(env, state));
  // Written whole, then renamed: a kill leaves the old word or the new one, never half a file.
  const tmp = join(dir, `.${key}.${process.pid}`);
  writeFileSync(tmp, `${JSON.stringify(full, null, 2)}\n`, { mode: 0o600 });
  renameSync(tmp, join(dir, key));
  rmSync(join(dirOf(env, state === 'allowed' ? 'denied' : 'allowed'), key), { force: true });
  return full;
}

/** Every approval and denial this user made (`lanes allow --list`). */
export function listTrust(env: Env): (TrustRecord & { state: TrustState })[] {
  const out: (TrustRecord & { state: TrustState })[] = [];
  for (const state of ['allowed', 'denied'] as const) {
    const dir = dirOf(env, state);
    let names: string[] = [];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const n of names) {
      if (n.startsWith('.')) continue;
      try {
        out.push({ ...(JSON.parse(readFileSync(join(dir, n), 'utf8')) as TrustRecord), state });
      } catch {
        // a file someone else put there: not an approval lanes made
      }
    }
  }
  return out.sort((a, b) => a.at.localeCompare(b.at));
}

export const trustDir = (env: Env): string => dirname(dirOf(env, 'allowed'));
