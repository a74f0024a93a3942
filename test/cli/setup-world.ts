import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  accessSync,
  constants,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { delimiter, join, relative } from 'node:path';
import { CLI, gitRepo, lanes, lanesEnv, tmp } from '../helpers/env.js';
import type { RunResult } from '../helpers/env.js';

// The world of the `lanes setup` tests (setup.test.ts, setup-undo.test.ts): a real git repository,
// an empty HOME holding only the agents' config directories a test asks for, and a PATH of
// stand-in agent programs, `lanes` itself (as an installed one: the hooks run `lanes hook …`) and
// the few system programs git and its hooks run. Nothing of the machine's own PATH: a real agent
// installed there would be "found" and the tests would depend on the machine.

/** The system programs the tests' git, its hooks and lanes run (ps and sysctl: lanes on the ps path). */
const SYSTEM = ['git', 'sh', 'dirname', 'cat', 'ps', 'sysctl'];

function which(name: string): string | null {
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    try {
      accessSync(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {
      // not here
    }
  }
  return null;
}

export interface World {
  repo: string;
  home: string;
  env: Record<string, string>;
  setup: (args: string[]) => Promise<RunResult>;
  git: (...args: string[]) => string;
}

export function world(o: { programs?: string[]; dirs?: string[] } = {}): World {
  const repo = gitRepo();
  const home = tmp('lanes-setup-home-');
  for (const d of o.dirs ?? []) mkdirSync(join(home, d), { recursive: true });
  const bin = tmp('lanes-setup-bin-');
  for (const p of o.programs ?? []) writeFileSync(join(bin, p), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
  writeFileSync(join(bin, 'lanes'), `#!/bin/sh\nexec '${process.execPath}' '${CLI}' "$@"\n`, { mode: 0o755 });
  for (const t of SYSTEM) {
    const at = which(t);
    if (at) symlinkSync(at, join(bin, t));
  }
  const env: Record<string, string> = {
    ...lanesEnv(),
    HOME: home,
    PATH: bin,
    // lanes' code cache would otherwise go under this HOME, and the undo tests compare it byte for byte.
    XDG_CACHE_HOME: tmp('lanes-setup-cache-'),
  };
  for (const k of ['CLAUDE_CONFIG_DIR', 'CODEX_HOME', 'GEMINI_CLI_HOME', 'COPILOT_HOME', 'XDG_CONFIG_HOME'])
    delete env[k];
  return {
    repo,
    home,
    env,
    setup: (args) => lanes(['setup', ...args], { env, cwd: repo }),
    git: (...args) => execFileSync('git', args, { cwd: repo, env, encoding: 'utf8' }),
  };
}

export interface Entry {
  kind: 'file' | 'dir' | 'link';
  mode: number;
  /** The bytes' sha256 (a failing comparison stays readable). */
  sha256?: string;
}

/**
 * Every file and directory under `dir` (the repository without .git but for its hooks, a HOME),
 * with its mode and bytes: what `lanes setup --undo` must give back exactly.
 */
export function snapshot(dir: string): Map<string, Entry> {
  const out = new Map<string, Entry>();
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      const rel = relative(dir, p);
      if (rel === '.git') {
        walk(join(p, 'hooks'));
        out.set(rel, { kind: 'dir', mode: 0 });
        continue;
      }
      const st = lstatSync(p);
      if (st.isSymbolicLink()) out.set(rel, { kind: 'link', mode: 0 });
      else if (st.isDirectory()) {
        out.set(rel, { kind: 'dir', mode: st.mode & 0o7777 });
        walk(p);
      } else {
        const sha256 = createHash('sha256').update(readFileSync(p)).digest('hex');
        out.set(rel, { kind: 'file', mode: st.mode & 0o7777, sha256 });
      }
    }
  };
  walk(dir);
  return out;
}

export interface SetupJson {
  agents: { agent: string; found: boolean; program: string | null; configDirs: string[]; selected: boolean }[];
  items: { holds: string[]; agent: string | null; file: string; state: string }[];
  written: boolean;
  commit: string[];
  notCommit: string[];
}
