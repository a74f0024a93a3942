import { readFileSync } from 'node:fs';
import { homeDir } from '../core/builtins.js';
import { join } from 'node:path';
import { LanesError } from '../core/errors.js';
import { storeLocation } from '../core/paths.js';
import { mergeConfig, storeUrlOf, validateConfig } from '../core/config.js';
import type { ConfigSource, LanesConfig } from '../core/config.js';
import { runnablesOf } from '../core/config-trust.js';
import type { Runnable } from '../core/config-trust.js';
import type { LanesContext } from './context.js';

/** `$LANES_CONFIG`, else `$XDG_CONFIG_HOME/lanes/config.toml`, else `~/.config/lanes/config.toml`. */
export function userConfigPath(env: Record<string, string | undefined>): string {
  if (env['LANES_CONFIG']) return env['LANES_CONFIG'];
  return join(env['XDG_CONFIG_HOME'] || join(homeDir(), '.config'), 'lanes', 'config.toml');
}

/** `[store] url` from the user's config (null without one): consulted when neither --store nor LANES_STORE is given. */
export async function userStoreUrl(env: Record<string, string | undefined>): Promise<string | null> {
  const src = await readSource(userConfigPath(env));
  return src ? storeUrlOf(src) : null;
}

/** The store lanes uses: --store, else LANES_STORE, else [store] url of the user config, else $LANES_HOME/lanes.db. */
export async function resolveStore(
  explicit: string | undefined,
  env: Record<string, string | undefined> = process.env,
): Promise<string> {
  const configured = explicit || env['LANES_STORE'] ? null : await userStoreUrl(env);
  return storeLocation(explicit ?? configured ?? undefined, env);
}

// Parsed files by path, reused while the text is the same: `lanes exec` reads the user config for
// the store and again for its environment.
const parsed = new Map<string, ConfigSource>();

async function readSource(file: string): Promise<ConfigSource | null> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new LanesError(
      'E_CONFIG',
      `cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      { hint: 'check its permissions' },
    );
  }
  const known = parsed.get(file);
  if (known?.text === text) return known;
  const src = await parseSource(file, text);
  parsed.set(file, src);
  return src;
}

/** Parses a config's text (named `file` in errors); E_CONFIG naming line and column when it is no TOML. */
export async function parseSource(file: string, text: string): Promise<ConfigSource> {
  const { parse, TomlError } = await import('smol-toml');
  try {
    return { file, text, data: parse(text) as Record<string, unknown> };
  } catch (e) {
    if (e instanceof TomlError) {
      const first = e.message.split('\n')[0] ?? e.message;
      throw new LanesError(
        'E_CONFIG',
        `${file}:${e.line}:${e.column}: ${first.replace(/^Invalid TOML document: /, '')}`,
        { hint: `fix the TOML syntax at ${file}:${e.line}`, details: { file, line: e.line, column: e.column } },
      );
    }
    throw e;
  }
}

/** A repository's lanes.toml as read: its exact text, and what it would run or set (core/config-trust.ts). */
export interface RepoConfigFile {
  file: string;
  text: string;
  runs: Runnable[];
}

export type LoadedConfig = LanesConfig & {
  files: string[];
  /** The repository's part (null without a lanes.toml): what needs the user's approval. */
  repoFile: RepoConfigFile | null;
};

/** The repository's lanes.toml (at the worktree root) merged with the user's config; defaults when neither exists. */
export async function loadConfig(ctx: LanesContext, worktreeRoot?: string | null): Promise<LoadedConfig> {
  // A session's worktree is known from the store: no git process needed on the exec path.
  const root = worktreeRoot ?? (await ctx.repo())?.worktreeRoot;
  const files = [...(root ? [join(root, 'lanes.toml')] : []), userConfigPath(ctx.env)];
  const userFile = userConfigPath(ctx.env);
  const sources = (await Promise.all(files.map(readSource))).filter((s): s is ConfigSource => s !== null);
  const parts = sources.map((s) => ({ s, part: validateConfig(s, { user: s.file === userFile }) }));
  const repo = parts.find((p) => p.s.file !== userFile);
  return {
    ...mergeConfig(parts.map((p) => p.part)),
    files: sources.map((s) => s.file),
    repoFile: repo ? { file: repo.s.file, text: repo.s.text, runs: runnablesOf(repo.part) } : null,
  };
}

/** The config as the library gives it (lib.config()): the repository file's text stays inside. */
export function publicConfig(c: LoadedConfig): LanesConfig & { files: string[] } {
  const { repoFile: _repoFile, ...rest } = c;
  return rest;
}

/** The user's config alone, validated (what only it may hold: [notify], [journal], …); {} without one. */
export async function userConfigOnly(
  env: Record<string, string | undefined>,
): Promise<ReturnType<typeof validateConfig>> {
  const src = await readSource(userConfigPath(env));
  return src ? validateConfig(src, { user: true }) : {};
}

/** A whole number from the environment (LANES_LEASE_MS and the like), undefined when unset or not one. */
export function envNumber(env: Record<string, string | undefined>, key: string): number | undefined {
  const v = env[key];
  return v && /^\d+$/.test(v) ? Number(v) : undefined;
}
