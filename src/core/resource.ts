import { isAbsolute, posix, resolve, sep } from 'node:path';
import { relativeTo } from './relative-to.js';
import { LanesError } from './errors.js';

/** A claimable resource after parsing: `kind:name` plus the scope it is exclusive in. */
export interface ResourceRef {
  kind: string;
  name: string;
  /** `repo:<git common dir>` or `host:<host id>`. */
  scope: string;
  /**
   * A path of a repository on a case-insensitive file system (git's core.ignorecase): compared
   * case-folded with every claim, whose stored spelling stays as it was given.
   */
  fold?: true;
}

export interface ResourceContext {
  cwd: string;
  /** Worktree root of the repository the caller is in, or null outside one. */
  worktreeRoot: string | null;
  /** Git common dir: identifies the repository across all its worktrees. */
  repoId: string | null;
  host: string;
  /** `--scope repo`: machine-scoped kinds become repository-scoped. */
  forceRepoScope?: boolean;
  /** The repository's file system ignores case (git's core.ignorecase): paths compare case-folded. */
  ignoreCase?: boolean;
  /** The home directory `file:~/…` names (default: $HOME). */
  home?: string;
}

const KIND = /^[a-z][a-z0-9-]*$/;
const REPO_KINDS = new Set(['ticket', 'path', 'branch']);
const MAX_NAME = 1024;

/**
 * Characters that make two different names look alike or reorder what a reader sees: C0/C1
 * controls and DEL, bidirectional marks, overrides and isolates (`lock:\u202eevil` shows as
 * `lock:live`), zero-width spaces, the BOM and the Unicode line separators. The zero-width joiner
 * (U+200D) is allowed: emoji sequences need it.
 */
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200b\u200c\u200e\u200f\u2028-\u202e\u2060\u2066-\u2069\ufeff]/u;

function describeInvisible(ch: string): string {
  const code = `U+${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
  if (ch === '\0') return 'a NUL byte';
  if (/[\u0000-\u001f\u007f-\u009f]/.test(ch)) return `a control character (${code})`;
  if (/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/.test(ch))
    return `a bidirectional control character (${code}), which reorders what a reader sees`;
  return `an invisible character (${code})`;
}

/**
 * A branch claim must name a branch git could have (the rules of `git check-ref-format --branch`),
 * so `branch:../../x` or `branch:main.lock` cannot pass for a claim on a real branch.
 */
function checkBranchName(text: string, name: string): void {
  const why =
    name.startsWith('-') || name === '@'
      ? `it cannot begin with "-" or be "@"`
      : /[\s~^:?*[\\]|\.\.|@\{|\/\/|^\/|\/$|\.$|\.lock$|\.lock\//.test(name) ||
          name.split('/').some((part) => part.startsWith('.'))
        ? 'git does not allow it as a branch name'
        : null;
  if (why) throw bad(text, why, 'name a branch git accepts (see git check-ref-format --branch), e.g. branch:feature/x');
}

/**
 * The order a person reads a session's claims in (lanes ls shows its first few): what it works on
 * (its ticket, its paths, its branch), then any other kind, ports last (a number says least).
 */
export const CLAIM_KIND_RANK: Readonly<Record<string, number>> = { ticket: 0, path: 1, branch: 2, port: 4 };
export const OTHER_KIND_RANK = 3;

export function claimRank(kind: string): number {
  return Object.hasOwn(CLAIM_KIND_RANK, kind) ? CLAIM_KIND_RANK[kind]! : OTHER_KIND_RANK;
}

export function formatResource(r: Pick<ResourceRef, 'kind' | 'name'>): string {
  return `${r.kind}:${r.name}`;
}

function bad(text: string, why: string, hint: string): LanesError {
  return new LanesError('E_BAD_RESOURCE', `resource ${JSON.stringify(text)}: ${why}`, { hint });
}

export function parseResource(text: string, ctx: ResourceContext): ResourceRef {
  const colon = text.indexOf(':');
  const kinds = 'ticket:SEAT-42, path:src/billing/, branch:NAME or any kind:name';
  if (colon <= 0) throw bad(text, 'expected kind:name', `write it as ${kinds}`);
  const kind = text.slice(0, colon);
  const rawName = text.slice(colon + 1);
  if (!KIND.test(kind))
    throw bad(text, `kind ${JSON.stringify(kind)} must match [a-z][a-z0-9-]*`, `write it as ${kinds}`);
  if (rawName.length === 0) throw bad(text, 'the name after ":" is empty', `write it as ${kinds}`);
  if (rawName.includes('\0')) throw bad(text, 'the name contains a NUL byte', 'remove the NUL byte');
  if (rawName.length > MAX_NAME)
    throw bad(text, `the name is longer than ${MAX_NAME} characters`, 'use a shorter name');
  const unseen = INVISIBLE.exec(rawName);
  if (unseen) throw bad(text, `the name contains ${describeInvisible(unseen[0])}`, 'use printable characters only');
  if (rawName.trim() === '') throw bad(text, 'the name is only whitespace', `write it as ${kinds}`);
  if (kind !== 'path' && rawName.trim() !== rawName)
    throw bad(text, 'the name begins or ends with whitespace', 'remove the spaces around the name');
  if (kind === 'branch') checkBranchName(text, rawName);

  const repoScoped = REPO_KINDS.has(kind) || ctx.forceRepoScope === true;
  if (repoScoped && !ctx.repoId) {
    throw bad(
      text,
      `${kind} claims belong to a git repository, and ${ctx.cwd} is not inside one`,
      'run it inside the repository (or use a machine-wide kind such as port:web)',
    );
  }
  const scope = repoScoped ? `repo:${ctx.repoId}` : `host:${ctx.host}`;
  // One spelling of one name: some tools hand over NFD (macOS' file APIs), the rest NFC.
  const name =
    kind === 'path'
      ? normalizeClaimPath(text, rawName.normalize('NFC'), ctx)
      : kind === 'file'
        ? normalizeFilePath(text, rawName.normalize('NFC'), ctx)
        : rawName;
  return kind === 'path' && ctx.ignoreCase ? { kind, name, scope, fold: true } : { kind, name, scope };
}

/**
 * Makes a path claim repository-relative, in POSIX form, without `.`/`..` segments. Relative
 * names are read from the caller's cwd (as git reads pathspecs); a trailing `/` marks a directory.
 * Anything that leaves the repository is refused: a claim there would protect nothing.
 */
export function normalizeClaimPath(text: string, rawName: string, ctx: ResourceContext): string {
  const root = ctx.worktreeRoot;
  if (!root) throw bad(text, 'path claims need a git repository', 'run it inside the repository');
  const isDir =
    rawName.endsWith('/') || rawName.endsWith('/.') || rawName.endsWith('/..') || rawName === '.' || rawName === '..';
  const absolute = isAbsolute(rawName) ? resolve(rawName) : resolve(ctx.cwd, rawName);
  const rel = relativeTo(root, absolute);
  if (rel === '')
    throw bad(text, 'it names the whole repository', 'claim a ticket (ticket:NAME) or a subdirectory instead');
  // `..` or `../…` leaves it; a name such as `..a` is an ordinary file inside it.
  if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
    throw bad(text, `it lies outside the repository ${root}`, 'name a path inside the repository');
  }
  const posixRel = rel.split(sep).join('/');
  const clean = posix.normalize(posixRel);
  return isDir ? `${clean}/` : clean;
}

/**
 * A `file:` claim names a fixed path of this machine outside any repository (~/.npmrc,
 * ~/.config/gh/): absolute (or `~/…`), without `.`/`..` segments; a trailing `/` is a directory.
 */
function normalizeFilePath(text: string, rawName: string, ctx: ResourceContext): string {
  const home = ctx.home ?? process.env['HOME'] ?? '';
  const expanded = rawName === '~' || rawName.startsWith('~/') ? `${home}${rawName.slice(1)}` : rawName;
  if (!isAbsolute(expanded) || (expanded !== rawName && !home))
    throw bad(
      text,
      'a file claim names an absolute path (or ~/…)',
      'write it as file:/home/you/.npmrc or file:~/.npmrc',
    );
  const clean = posix.normalize(expanded.split(sep).join('/'));
  return clean !== '/' && expanded.endsWith('/') && !clean.endsWith('/') ? `${clean}/` : clean;
}

/** A path as a case-insensitive file system compares it (NFC, then lower case). */
export function foldPath(p: string): string {
  return p.normalize('NFC').toLowerCase();
}

/**
 * Two path claims conflict when they are equal or one is a directory containing the other;
 * `fold`: on a case-insensitive file system, where `src/Billing/x.ts` is a file of `src/billing/`.
 */
export function pathsOverlap(x: string, y: string, fold = false): boolean {
  const [a, b] = fold ? [foldPath(x), foldPath(y)] : [x, y];
  const bare = (p: string) => (p.endsWith('/') ? p.slice(0, -1) : p);
  if (bare(a) === bare(b)) return true;
  if (a.endsWith('/') && b.startsWith(a)) return true;
  if (b.endsWith('/') && a.startsWith(b)) return true;
  return false;
}

/** Whether two resources in the same scope exclude each other. */
export function resourcesConflict(a: ResourceRef, b: ResourceRef): boolean {
  if (a.scope !== b.scope || a.kind !== b.kind) return false;
  return a.kind === 'path' || a.kind === 'file'
    ? pathsOverlap(a.name, b.name, a.fold === true || b.fold === true)
    : a.name === b.name;
}
