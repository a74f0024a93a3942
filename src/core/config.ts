import { parseDuration } from './duration.js';
import { reservedEnvName } from './config-trust.js';
import { LanesError } from './errors.js';
import { fail, stringList, table } from './config-fail.js';
import type { ConfigSource } from './config-fail.js';
import { DEFAULT_NOTIFY, validateNotify } from './config-notify.js';
import { DEFAULT_BUDGET, validateBudget, type BudgetConfig } from './config-budget.js';
import { DEFAULT_SEATS, validateSeats } from './config-seats.js';
import type { SeatsConfig } from './config-seats.js';
import { DEFAULT_SESSION_CONFIG, validateSession } from './config-session.js';
import type { SessionConfig } from './config-session.js';
import type { NotifyConfig } from './config-notify.js';
import { DEFAULT_LAND_CONFIG, validateLand } from './config-land.js';
import type { LandConfig } from './config-land.js';

export type { ConfigSource } from './config-fail.js';
export { lineOf } from './config-fail.js';

/** lanes.toml / ~/.config/lanes/config.toml after validation and merging. */
export interface LanesConfig {
  ports: { names: string[]; range: { low: number; high: number } };
  env: { templates: Record<string, string>; strip: string[] };
  snapshot: { onStop: boolean };
  /**
   * `[worktree]`, user config only: what `.worktreeinclude` may copy from outside the repository;
   * which ignored directories `lanes gc --worktrees --reclaim` deletes (names, at any depth).
   */
  worktree: { includeLinksOutside: boolean; reclaim: string[] };
  /** `[journal]`, user config only: how long decisions are kept (`retention = "30d"`). */
  journal: { retentionMs: number };
  /** `[shared]`, user config only: files of this machine every session shares (`~/…` or absolute; `/` ends a directory). */
  shared: { files: string[] };
  /** `[notify]`, user config only: who is told when an agent waits, finishes, is denied or dies. */
  notify: NotifyConfig;
  /** `[budget]`, user config only: what a session, a ticket and the night may spend (issue 50). */
  budget: BudgetConfig;
  /** `[session]`: setup and teardown commands of each session's worktree. */
  session: SessionConfig;
  /** `[seats]`, user config only: what a session does when its seat (login) runs out. */
  seats: SeatsConfig;
  /** `[land]`: the queue's check and how a branch is brought onto the target (lanes land --queue). */
  land: LandConfig;
}

/** The machine's shared CLI configs and credentials an agent edits only under a `file:` claim. */
export const DEFAULT_SHARED_FILES = [
  '~/.gitconfig',
  '~/.config/git/',
  '~/.git-credentials',
  '~/.npmrc',
  '~/.yarnrc',
  '~/.yarnrc.yml',
  '~/.config/gh/',
  '~/.netrc',
  '~/.ssh/',
  '~/.aws/',
  '~/.docker/config.json',
  '~/.kube/config',
  '~/.pypirc',
  '~/.cargo/credentials.toml',
];

/** Heavy directories a build or an install makes again: what `lanes gc --worktrees --reclaim` deletes by default. */
export const DEFAULT_RECLAIM = ['node_modules', 'dist', 'build', 'target', '.next', '.turbo', '.venv'];

export const DEFAULT_CONFIG: LanesConfig = {
  ports: { names: [], range: { low: 20000, high: 29999 } },
  env: { templates: {}, strip: [] },
  snapshot: { onStop: false },
  worktree: { includeLinksOutside: false, reclaim: DEFAULT_RECLAIM },
  journal: { retentionMs: 30 * 86_400_000 },
  shared: { files: DEFAULT_SHARED_FILES },
  notify: DEFAULT_NOTIFY,
  budget: DEFAULT_BUDGET,
  session: DEFAULT_SESSION_CONFIG,
  seats: DEFAULT_SEATS,
  land: DEFAULT_LAND_CONFIG,
};

const PORT_NAME = /^[A-Za-z][A-Za-z0-9_]{0,31}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const SAFE_VALUE = /^[A-Za-z0-9_.:-]+$/;
const PLACEHOLDER = /\{(repo|slug|session|ticket)\}/g;
const STRIP = /^[A-Za-z0-9_*?]+$/;
// A name, never a path: reclaiming `..` or `.git` would reach what is no build output.
const RECLAIM_NAME = /^(?!\.{1,2}$)(?!\.git$)[^/\\\0]{1,255}$/;

const USER_ONLY = ['worktree', 'journal', 'shared', 'notify', 'seats', 'budget'];
const TABLES = ['ports', 'env', 'snapshot', 'session', 'land', ...USER_ONLY];

/** Validates one file's data: unknown keys, wrong types and bad values are errors naming file, line and key. */
export function validateConfig(
  src: ConfigSource,
  options: { user?: boolean } = {},
): Partial<{
  ports: Partial<LanesConfig['ports']>;
  env: Partial<LanesConfig['env']>;
  snapshot: Partial<LanesConfig['snapshot']>;
  worktree: Partial<LanesConfig['worktree']>;
  journal: LanesConfig['journal'];
  shared: LanesConfig['shared'];
  notify: LanesConfig['notify'];
  budget: LanesConfig['budget'];
  session: Partial<SessionConfig>;
  seats: SeatsConfig;
  land: Partial<LandConfig>;
}> {
  for (const key of Object.keys(src.data)) {
    if (key === 'store') {
      // Which store to use is each user's choice (and may carry a password): never a repository's.
      if (!options.user)
        fail(
          src,
          'store',
          undefined,
          "[store] only in the user config (~/.config/lanes/config.toml), not in the repository's lanes.toml",
        );
      storeUrlOf(src);
      continue;
    }
    if (USER_ONLY.includes(key) && !options.user)
      // Copying files from outside the repository, how long the store keeps its journal, which of
      // the machine's files are shared and who is notified are each user's choice, never a repository's.
      fail(src, key, undefined, `[${key}] only in the user config (~/.config/lanes/config.toml)`);
    if (!TABLES.includes(key))
      fail(src, key, undefined, `one of the tables ${TABLES.map((t) => `[${t}]`).join(', ')} (unknown table)`);
  }
  const out: ReturnType<typeof validateConfig> = {};
  const ports = table(src, 'ports');
  if (Object.keys(ports).length) {
    out.ports = {};
    for (const [k, v] of Object.entries(ports)) {
      if (k === 'names')
        out.ports.names = stringList(
          src,
          'ports',
          k,
          v,
          PORT_NAME,
          'port names (a letter, then letters, digits or _; at most 32)',
        );
      else if (k === 'range') {
        const m = typeof v === 'string' ? /^(\d{1,5})-(\d{1,5})$/.exec(v) : null;
        const low = Number(m?.[1]);
        const high = Number(m?.[2]);
        if (!m || low < 1024 || high > 65535 || low > high)
          fail(src, 'ports', k, 'a string "LOW-HIGH" with 1024 <= LOW <= HIGH <= 65535', v);
        out.ports.range = { low, high };
      } else fail(src, 'ports', k, 'names or range (unknown key)');
    }
  }
  const env = table(src, 'env');
  if (Object.keys(env).length) {
    out.env = { templates: {} };
    for (const [k, v] of Object.entries(env)) {
      if (k === 'strip')
        out.env.strip = stringList(src, 'env', k, v, STRIP, 'variable names or globs (letters, digits, _, * and ?)');
      // __proto__ matches the pattern but cannot be a key of the objects the environment is built in.
      else if (!ENV_NAME.test(k) || k === '__proto__')
        fail(src, 'env', k, 'an environment variable name ([A-Za-z_][A-Za-z0-9_]*, not __proto__)');
      // The session's identity and private directories are lanes' own: a template never replaces them.
      else if (reservedEnvName(k)) fail(src, 'env', k, 'a name lanes does not set itself (not LANES_*, not TMPDIR)');
      else if (typeof v !== 'string') fail(src, 'env', k, 'a template string such as "{repo}_{slug}"', v);
      else {
        const bad = [...v.matchAll(/\{([^}]*)\}/g)]
          .map((m) => m[1])
          .filter((p) => !['repo', 'slug', 'session', 'ticket'].includes(p ?? ''));
        if (bad.length) fail(src, 'env', k, 'placeholders among {repo}, {slug}, {session}, {ticket}', `{${bad[0]}}`);
        // The fixed text must be safe by itself, so every command refuses a template that could
        // never render (not only `lanes env`, which renders it). {ticket} is checked per session.
        if (!SAFE_VALUE.test(v.replace(PLACEHOLDER, 'x')))
          fail(src, 'env', k, 'a template of letters, digits, _ . : - and placeholders', v);
        out.env.templates![k] = v;
      }
    }
  }
  const snapshot = table(src, 'snapshot');
  if (Object.keys(snapshot).length) {
    out.snapshot = {};
    for (const [k, v] of Object.entries(snapshot)) {
      if (k !== 'on_stop') fail(src, 'snapshot', k, 'on_stop (unknown key)');
      if (typeof v !== 'boolean') fail(src, 'snapshot', k, 'true or false', v);
      out.snapshot.onStop = v as boolean;
    }
  }
  const worktree = table(src, 'worktree');
  for (const [k, v] of Object.entries(worktree)) {
    out.worktree ??= {};
    if (k === 'reclaim')
      out.worktree.reclaim = stringList(src, 'worktree', k, v, RECLAIM_NAME, 'directory names (no /, not . or .git)');
    else if (k !== 'include_links_outside') fail(src, 'worktree', k, 'include_links_outside or reclaim (unknown key)');
    else if (typeof v !== 'boolean') fail(src, 'worktree', k, 'true or false', v);
    else out.worktree.includeLinksOutside = v;
  }
  for (const [k, v] of Object.entries(table(src, 'journal'))) {
    if (k !== 'retention') fail(src, 'journal', k, 'retention (unknown key)');
    let ms = NaN;
    try {
      ms = typeof v === 'string' ? parseDuration(v, 'retention') : NaN;
    } catch {
      // told below, with the file and key
    }
    if (!(ms >= 3_600_000)) fail(src, 'journal', k, 'a duration of at least 1h, such as "30d" or "90d"', v);
    out.journal = { retentionMs: ms };
  }
  for (const [k, v] of Object.entries(table(src, 'shared'))) {
    if (k !== 'files') fail(src, 'shared', k, 'files (unknown key)');
    // The list replaces the defaults (an empty list: none).
    if (!Array.isArray(v) || !v.every((x) => typeof x === 'string' && (x.startsWith('/') || x.startsWith('~/'))))
      fail(src, 'shared', k, 'a list of paths, each absolute or ~/…, such as ["~/.npmrc", "~/.config/gh/"]', v);
    out.shared = { files: v as string[] };
  }
  const notify = table(src, 'notify');
  if (Object.keys(notify).length) out.notify = validateNotify(src, notify);
  if (Object.keys(table(src, 'budget')).length) out.budget = validateBudget(src, table(src, 'budget'));
  const session = table(src, 'session');
  if (Object.keys(session).length) out.session = validateSession(src, session);
  const seats = table(src, 'seats');
  if (Object.keys(seats).length) out.seats = validateSeats(src, seats);
  const land = table(src, 'land');
  if (Object.keys(land).length) out.land = validateLand(src, land);
  return out;
}

/** `[store] url` of the user config: a postgres:// URL or a path to a SQLite file; null when absent. */
export function storeUrlOf(src: ConfigSource): string | null {
  const t = table(src, 'store');
  for (const [k, v] of Object.entries(t)) {
    if (k !== 'url') fail(src, 'store', k, 'url (unknown key)');
    if (typeof v !== 'string' || v.trim() === '')
      fail(src, 'store', k, 'a postgres:// URL or the path of a SQLite file', v);
  }
  return typeof t['url'] === 'string' ? t['url'] : null;
}

/**
 * Merges validated files, lowest precedence first (the repository's lanes.toml, then the user's
 * config): scalars of a later file win; port names, templates and strip lists add up.
 */
export function mergeConfig(parts: ReturnType<typeof validateConfig>[]): LanesConfig {
  const c: LanesConfig = structuredClone(DEFAULT_CONFIG);
  for (const p of parts) {
    if (p.ports?.names) c.ports.names = [...new Set([...c.ports.names, ...p.ports.names])];
    if (p.ports?.range) c.ports.range = p.ports.range;
    if (p.env?.templates) Object.assign(c.env.templates, p.env.templates);
    if (p.env?.strip) c.env.strip = [...new Set([...c.env.strip, ...p.env.strip])];
    if (p.snapshot?.onStop !== undefined) c.snapshot.onStop = p.snapshot.onStop;
    if (p.worktree) c.worktree = { ...c.worktree, ...p.worktree };
    if (p.journal) c.journal = p.journal;
    if (p.shared) c.shared = p.shared;
    if (p.notify) c.notify = p.notify;
    if (p.budget) c.budget = p.budget;
    if (p.session) c.session = { ...c.session, ...p.session };
    if (p.seats) c.seats = p.seats;
    if (p.land) c.land = { ...c.land, ...p.land };
  }
  return c;
}

/** Whether an environment variable name matches a strip entry (a name, or a glob with * and ?). */
export function matchesStrip(name: string, patterns: string[]): boolean {
  return patterns.some((p) =>
    new RegExp(
      `^${p
        .replace(/[.+^${}()|[\]\\]/g, '\\$&')
        .replace(/\*/g, '.*')
        .replace(/\?/g, '.')}$`,
    ).test(name),
  );
}

/** Renders a template; a result that is not identifier-safe is an error, never a mangled name. */
export function renderTemplate(
  name: string,
  template: string,
  values: { repo: string; slug: string; session: string; ticket: string | null },
): string {
  const out = template.replace(PLACEHOLDER, (_, k: keyof typeof values) => {
    const v = values[k];
    if (v === null)
      throw new LanesError('E_CONFIG', `[env] ${name} = "${template}" uses {ticket}, and this session has no ticket`, {
        hint: 'start the session with --ticket T, or drop {ticket} from the template',
      });
    return v;
  });
  if (!SAFE_VALUE.test(out)) {
    throw new LanesError(
      'E_CONFIG',
      `[env] ${name} = "${template}" gives ${JSON.stringify(out)}, which is not a safe name (letters, digits, _ . : - only)`,
      {
        hint: 'use {slug} (already made safe) instead of raw values, or change the template',
      },
    );
  }
  return out;
}
