import { crypto } from './builtins.js';

// What a repository's lanes.toml can make lanes run, and the key its approval is kept under
// (issue 46). A repository is code someone else wrote: its [session] setup and teardown are shell
// commands, and every [env] template is a value lanes puts into the environment of the agent, of
// `lanes exec` and of those commands. Values are limited to letters, digits and _ . : -, yet such a
// value still changes what runs (PATH = "bin" runs the repository's own git; NODE_OPTIONS,
// GIT_DIR, LD_PRELOAD), where credentials go (HTTPS_PROXY, GH_HOST, DOCKER_HOST) or which
// configuration programs read (HOME, XDG_CONFIG_HOME: git then reads a core.fsmonitor command from
// the repository). No list of names is complete, so every template counts, as direnv counts a whole
// .envrc. The user's own config (~/.config/lanes) is the user's, and needs no approval.

/** One thing a repository's lanes.toml would run or set. */
export interface Runnable {
  kind: 'setup' | 'teardown' | 'env' | 'check';
  /** As the file says it: `[session] setup`, `[env] PATH`. */
  key: string;
  value: string;
}

/** What one validated repository config runs or sets, in file order. */
export function runnablesOf(part: {
  session?: { setup?: string | null; teardown?: string | null };
  env?: { templates?: Record<string, string> };
  land?: { check?: string | null };
}): Runnable[] {
  const out: Runnable[] = [];
  if (part.session?.setup) out.push({ kind: 'setup', key: '[session] setup', value: part.session.setup });
  if (part.session?.teardown) out.push({ kind: 'teardown', key: '[session] teardown', value: part.session.teardown });
  for (const [name, value] of Object.entries(part.env?.templates ?? {}))
    out.push({ kind: 'env', key: `[env] ${name}`, value });
  if (part.land?.check) out.push({ kind: 'check', key: '[land] check', value: part.land.check });
  return out;
}

/**
 * The key an approval is kept under: the repository (its git common directory: every worktree of
 * one clone shares it, another clone does not) and the file's exact bytes. A copy of an allowed
 * file in another repository is not allowed: its commands would run that repository's scripts.
 */
export function trustKey(repository: string, text: string): string {
  return crypto().createHash('sha256').update(`lanes-allow-v1\0${repository}\0`).update(text).digest('hex');
}

/** The file's own hash, shown to the user (`sha256sum lanes.toml` gives the same). */
export function contentHash(text: string): string {
  return crypto().createHash('sha256').update(text).digest('hex');
}

/** Names lanes sets itself in a session's environment: no config may template them. */
export function reservedEnvName(name: string): boolean {
  return name.startsWith('LANES_') || name === 'TMPDIR';
}
