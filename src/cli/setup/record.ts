import { readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { crypto } from '../../core/builtins.js';
import { LanesError } from '../../core/errors.js';
import { lanesHome } from '../../core/paths.js';
import { ensurePrivateDir } from '../../core/private-dir.js';
import type { InstallRecord } from '../../agents/install-record.js';
import type { AgentName } from '../../core/hook-event.js';

// What `lanes setup` changed, so that `lanes setup --undo` gives every byte back: each file's
// content and mode before setup first wrote it (or that it did not exist), the hash of what setup
// left there (a file changed since is the user's: undo never overwrites it), the directories it
// made, and the hooks installer's own records as they were. Kept in the user's state
// ($LANES_HOME/setup, 0700), never in the repository, one file per repository keyed by its git
// common directory, as the approvals of lanes.toml are (services/trust/approvals.ts): every
// worktree of the clone finds it.

type Env = Record<string, string | undefined>;

/** What a file is to setup: it decides how --undo --keep-edited takes lanes out of one changed since. */
export interface Target {
  path: string;
  role: 'config' | 'guard' | 'lanes.toml';
  /** role config: the agent whose hooks or MCP entry it holds (one file may hold both), its scope and worktree. */
  agent?: AgentName;
  user?: boolean;
  root?: string;
}

export interface FileRecord extends Target {
  /** The bytes before setup (base64), or null: the file did not exist. */
  before: string | null;
  mode: number | null;
  /** sha256 of the bytes setup left, or null: it left no file. */
  after: string | null;
}

export interface SetupRecord {
  version: 1;
  /** The repository's git common directory (real path). */
  repository: string;
  at: string;
  files: FileRecord[];
  /** Directories setup made, parents first. */
  dirs: string[];
  /** The hooks installer's records ($LANES_HOME/hooks-installed.json) of the keys setup touched, as they were. */
  installRecords: Record<string, InstallRecord | null>;
}

export const sha256 = (b: Buffer): string => crypto().createHash('sha256').update(b).digest('hex');

function recordFile(env: Env, repository: string): string {
  const key = crypto().createHash('sha256').update(`lanes-setup-v1\0${repository}`).digest('hex');
  return join(lanesHome(env), 'setup', `${key}.json`);
}

/** The file's bytes, or null when there is none. */
export function readBytes(path: string): Buffer | null {
  try {
    return readFileSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new LanesError('E_IO', `cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, {
      hint: 'check its permissions',
    });
  }
}

export function readSetupRecord(env: Env, repository: string): SetupRecord | null {
  const file = recordFile(env, repository);
  const bytes = readBytes(file);
  if (bytes === null) return null;
  try {
    const r = JSON.parse(bytes.toString('utf8')) as SetupRecord;
    if (r.version === 1 && Array.isArray(r.files) && Array.isArray(r.dirs)) return r;
  } catch {
    // said below
  }
  throw new LanesError('E_IO', `${file} is not a record lanes setup wrote`, {
    hint: `remove it to forget this repository's setup (rm '${file}'); lanes setup --undo then has nothing to undo`,
  });
}

export function writeSetupRecord(env: Env, record: SetupRecord): void {
  const file = recordFile(env, record.repository);
  ensurePrivateDir(dirname(file));
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(record, null, 2) + '\n', { mode: 0o600 });
  renameSync(tmp, file);
}

export function removeSetupRecord(env: Env, repository: string): void {
  rmSync(recordFile(env, repository), { force: true });
}

/** The directories that writing `path` would make: its missing ancestors, parents first. */
export function missingDirs(path: string): string[] {
  const missing: string[] = [];
  for (let d = dirname(path); d !== dirname(d); d = dirname(d)) {
    try {
      statSync(d);
      break;
    } catch {
      missing.unshift(d);
    }
  }
  return missing;
}

/** The files as they are before setup writes them. */
export function captureBefore(targets: Target[]): FileRecord[] {
  return targets.map((t) => {
    const bytes = readBytes(t.path);
    const mode = bytes === null ? null : statSync(t.path).mode & 0o7777;
    return { ...t, before: bytes === null ? null : bytes.toString('base64'), mode, after: null };
  });
}

/**
 * This run's captures added to an earlier run's record: a file an earlier setup changed and nobody
 * touched since keeps what it was before that one (undo goes back to before the first setup); one
 * the user changed in between takes what it was before this run (undo never drops their edit).
 */
export function mergeRecord(
  earlier: SetupRecord | null,
  repository: string,
  files: FileRecord[],
  dirs: string[],
  installRecords: Record<string, InstallRecord | null>,
): SetupRecord {
  const afterNow = (path: string) => {
    const b = readBytes(path);
    return b === null ? null : sha256(b);
  };
  const byPath = new Map((earlier?.files ?? []).map((f) => [f.path, f]));
  for (const f of files) {
    const e = byPath.get(f.path);
    const untouched = e && e.after === (f.before === null ? null : sha256(Buffer.from(f.before, 'base64')));
    byPath.set(f.path, { ...(untouched ? e : f), after: afterNow(f.path) });
  }
  return {
    version: 1,
    repository,
    at: earlier?.at ?? new Date().toISOString(),
    files: [...byPath.values()],
    dirs: [...new Set([...(earlier?.dirs ?? []), ...dirs])],
    installRecords: { ...installRecords, ...(earlier?.installRecords ?? {}) },
  };
}
