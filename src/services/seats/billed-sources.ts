import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parse as parseJsonc } from 'jsonc-parser';
import { parse as parseToml } from 'smol-toml';
import { AGENT_LOGINS, agentUserFile } from '../../core/agent-logins.js';
import { homeDir } from '../../core/builtins.js';
import type { AgentName } from '../../core/hook-event.js';

// Lanes strips every billed-per-call variable from a seated session's environment, but an agent
// also reads its own files, and several of them can put a key back: Claude Code's settings
// ("env", "apiKeyHelper") and an API-key login in its .claude.json; a Codex login made with an API
// key (auth.json) or a model provider that takes its key from a variable (config.toml); Gemini
// CLI's .env files (loaded from the working directory up, then the home) and an API-key auth type in
// its settings; OpenCode's provider keys in its auth.json. Each found is a place the 3 AM session
// would bill by the call: a seat that is not pay-per-use is not leased while one is there.

/** Where Claude Code's managed settings live (its own build's default; an administrator's, not the user's). */
const MANAGED_CLAUDE_DIR =
  process.platform === 'darwin' ? '/Library/Application Support/ClaudeCode' : '/etc/claude-code';

export interface BilledSource {
  /** The file that would bring the key back. */
  file: string;
  /** What in it: `env.ANTHROPIC_API_KEY`, `apiKeyHelper`, `an API key login`, `GEMINI_API_KEY`. */
  what: string;
}

/**
 * The places `agent`, started in `cwd` with the seat's variables `env` set, would find a
 * billed-per-call key of its own. Unreadable or malformed files are passed over: the agent itself
 * reports those.
 */
export function billedSources(
  agent: AgentName,
  env: Record<string, string | undefined>,
  cwd: string | null,
  o: {
    home?: string;
    /** Claude Code's managed settings directory (an administrator's; tests give a temporary one). */
    managedDir?: string;
    /** The agent's command line, when known: Claude Code's `--settings FILE|JSON` adds a layer. */
    command?: readonly string[];
  } = {},
): BilledSource[] {
  const { home = homeDir(), managedDir = MANAGED_CLAUDE_DIR, command = [] } = o;
  const billed = new Set(AGENT_LOGINS[agent].payPerUse);
  const user = (rel: string) => agentUserFile(agent, rel, home, env);
  switch (agent) {
    case 'claude-code':
      return [
        ...[
          user('.claude/settings.json'),
          ...(cwd ? [join(cwd, '.claude', 'settings.json'), ...localSettings(cwd)] : []),
          ...managedClaudeSettings(managedDir),
        ].flatMap((file) => claudeSettings(file, billed)),
        ...commandSettings(command, cwd).flatMap((s) => claudeSettings(s, billed)),
        ...apiKeyLogin(user('.claude.json')),
      ];
    case 'codex':
      return [
        ...fromJson(user('.codex/auth.json'), (j) => (codexBillsPerCall(j) ? ['an API key login'] : [])),
        ...codexProvider([
          ...CODEX_SYSTEM_CONFIG,
          user('.codex/config.toml'),
          ...(cwd ? projectFiles(cwd, join('.codex', 'config.toml')) : []),
        ]),
      ];
    case 'gemini': {
      // Gemini CLI's home is GEMINI_CLI_HOME when set (its homedir()), else the user's.
      const gHome = env['GEMINI_CLI_HOME']?.trim() || home;
      const settings = fromJson(join(gHome, '.gemini', 'settings.json'), (j) => {
        const type = (j['security'] as Record<string, Record<string, unknown>> | undefined)?.['auth']?.['selectedType'];
        return typeof type === 'string' ? [type] : [];
      });
      const chosen = settings[0];
      // An auth type chosen in the settings wins over any key in a .env: only a billed type counts then.
      if (chosen)
        return BILLED_GEMINI_AUTH.has(chosen.what)
          ? [{ file: chosen.file, what: `security.auth.selectedType "${chosen.what}"` }]
          : [];
      return geminiEnvFile(cwd, gHome, billed);
    }
    case 'opencode': {
      const data = env['XDG_DATA_HOME']?.trim() || join(home, '.local', 'share');
      return fromJson(join(data, 'opencode', 'auth.json'), (j) =>
        Object.entries(j)
          .filter(([, v]) => (v as Record<string, unknown> | null)?.['type'] === 'api')
          .map(([provider]) => `an API key for ${provider}`),
      );
    }
    default:
      return [];
  }
}

/** Said in an error or a warning: `~/.claude/settings.json (env.ANTHROPIC_API_KEY)`, one per place. */
export function describeSources(sources: readonly BilledSource[]): string {
  return sources.map((s) => `${s.file} (${s.what})`).join('; ');
}

/** managed-settings.json and the drop-ins of managed-settings.d beside it (Claude Code 2.1 reads both). */
function managedClaudeSettings(dir: string): string[] {
  let dropIns: string[] = [];
  try {
    dropIns = readdirSync(join(dir, 'managed-settings.d'))
      .filter((f) => f.endsWith('.json') && !f.startsWith('.'))
      .sort()
      .map((f) => join(dir, 'managed-settings.d', f));
  } catch {
    // no drop-in directory: the common case
  }
  return [join(dir, 'managed-settings.json'), ...dropIns];
}

/** Codex 0.171's layers under the user's: the system config and the managed one (MDM's legacy file). */
const CODEX_SYSTEM_CONFIG = ['/etc/codex/config.toml', '/etc/codex/managed_config.toml'];

/** A value the agent would use: Claude takes numbers and booleans in "env" as their text; off switches are not keys. */
const filled = (v: unknown) => {
  if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') return false;
  const text = String(v).trim().toLowerCase();
  return text !== '' && text !== '0' && text !== 'false' && text !== 'no' && text !== 'off';
};

const BILLED_GEMINI_AUTH = new Set(['gemini-api-key', 'vertex-ai', 'compute-default-credentials', 'gateway']);

/**
 * Codex's own rule for which login auth.json holds: its auth_mode when written (a ChatGPT sign-in
 * also stores an exchanged API key, unused in that mode), else an API key without ChatGPT tokens.
 */
function codexBillsPerCall(j: Record<string, unknown>): boolean {
  const mode = j['auth_mode'];
  if (typeof mode === 'string') return mode !== 'chatgpt' && mode !== 'chatgptAuthTokens';
  return filled(j['OPENAI_API_KEY']) && !j['tokens'];
}

/** Claude's .claude.json is often megabytes: looked into only when it names an API key login at all. */
function apiKeyLogin(file: string): BilledSource[] {
  const text = read(file);
  if (text === null || !text.includes('"primaryApiKey"')) return [];
  try {
    const j = JSON.parse(text) as Record<string, unknown>;
    return filled(j['primaryApiKey']) ? [{ file, what: 'an API key login (primaryApiKey)' }] : [];
  } catch {
    return [];
  }
}

/**
 * Claude Code reads settings.local.json in the working directory and at the repository's canonical
 * root: the main checkout's, also from a linked worktree (the file is untracked, so it lives there).
 */
function localSettings(cwd: string): string[] {
  const files = new Set([join(cwd, '.claude', 'settings.local.json')]);
  for (let dir: string | null = cwd; dir; dir = dirname(dir) === dir ? null : dirname(dir)) {
    const dotGit = join(dir, '.git');
    const link = read(dotGit); // a file in a linked worktree: "gitdir: …/.git/worktrees/NAME"
    if (link === null && read(join(dotGit, 'HEAD')) === null) continue;
    let root = dir;
    const gitdir = link === null ? undefined : /^gitdir:\s*(.+)$/m.exec(link)?.[1]?.trim();
    const common = gitdir ? read(join(resolve(dir, gitdir), 'commondir'))?.trim() : undefined;
    if (gitdir && common) root = dirname(resolve(dir, gitdir, common));
    files.add(join(dir, '.claude', 'settings.local.json')).add(join(root, '.claude', 'settings.local.json'));
    break;
  }
  return [...files];
}

function read(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/**
 * `claude --settings X` (or `--settings=X`): X is a settings file, relative to the working
 * directory, or the settings themselves as JSON text (then named as the command line).
 */
function commandSettings(command: readonly string[], cwd: string | null): SettingsText[] {
  const out: SettingsText[] = [];
  for (let i = 0; i < command.length; i++) {
    const a = command[i] as string;
    if (a === '--') break;
    const value = a === '--settings' ? command[++i] : a.startsWith('--settings=') ? a.slice(11) : undefined;
    if (value === undefined) continue;
    if (value.trim().startsWith('{')) out.push({ file: 'the command line (--settings)', text: value });
    else out.push(resolve(cwd ?? '.', value));
  }
  return out;
}

/** A file to read, or settings given as text (named by where they came from). */
type SettingsText = string | { file: string; text: string };

function fromJson(source: SettingsText, found: (json: Record<string, unknown>) => string[]): BilledSource[] {
  const file = typeof source === 'string' ? source : source.file;
  const text = typeof source === 'string' ? read(source) : source.text;
  if (text === null) return [];
  const json: unknown = parseJsonc(text, [], { allowTrailingComma: true });
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return [];
  return found(json as Record<string, unknown>).map((what) => ({ file, what }));
}

function claudeSettings(file: SettingsText, billed: Set<string>): BilledSource[] {
  return fromJson(file, (j) => {
    const env = j['env'] && typeof j['env'] === 'object' ? (j['env'] as Record<string, unknown>) : {};
    return [
      ...Object.keys(env)
        .filter((k) => billed.has(k) && filled(env[k]))
        .map((k) => `env.${k}`),
      ...(filled(j['apiKeyHelper']) ? ['apiKeyHelper'] : []),
    ];
  });
}

/**
 * A model provider that takes its key from a variable bills by the call. Codex layers its config
 * files (system, managed, the user's, then the project's `.codex/config.toml` from the repository's
 * root down to the working directory): the provider chosen in one layer may be defined in another,
 * so every layer that chooses one is looked up in all of them together.
 */
function codexProvider(files: string[]): BilledSource[] {
  const layers = files.flatMap((file) => {
    const text = read(file);
    if (text === null) return [];
    try {
      return [{ file, toml: parseToml(text) as Record<string, unknown> }];
    } catch {
      return [];
    }
  });
  const providers: Record<string, Record<string, unknown> | undefined> = {};
  // Merged as Codex merges its layers: a provider's fields one by one (a project layer that only
  // sets base_url keeps the env_key the user's layer gave it).
  for (const { toml } of layers)
    for (const [name, fields] of Object.entries((toml['model_providers'] ?? {}) as Record<string, unknown>))
      if (fields && typeof fields === 'object') providers[name] = { ...providers[name], ...(fields as object) };
  return layers.flatMap(({ file, toml }) => {
    const name = toml['model_provider'];
    const key = typeof name === 'string' ? providers[name]?.['env_key'] : undefined;
    return typeof key === 'string' ? [{ file, what: `model_provider "${name}" with env_key ${key}` }] : [];
  });
}

/** `rel` in each directory from the repository's root (the first with a .git) down to `cwd`. */
function projectFiles(cwd: string, rel: string): string[] {
  const dirs: string[] = [];
  for (let dir: string | null = cwd; dir; dir = dirname(dir) === dir ? null : dirname(dir)) {
    dirs.unshift(dir);
    if (existsSync(join(dir, '.git'))) return dirs.map((d) => join(d, rel));
  }
  return [join(cwd, rel)];
}

/**
 * Without an auth type in its settings, Gemini CLI takes one from the first .env it finds:
 * `.gemini/.env` or `.env` in the working directory or a parent, else in its home. dotenv's
 * `KEY=value` and `KEY: value` lines.
 */
function geminiEnvFile(cwd: string | null, geminiHome: string, billed: Set<string>): BilledSource[] {
  const candidates: string[] = [];
  for (let dir = cwd; dir; dir = dirname(dir) === dir ? null : dirname(dir))
    candidates.push(join(dir, '.gemini', '.env'), join(dir, '.env'));
  candidates.push(join(geminiHome, '.gemini', '.env'), join(geminiHome, '.env'));
  for (const file of candidates) {
    const text = read(file);
    if (text === null) continue;
    const keys = text
      .split(/\r?\n/)
      .map((line) => /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*[=:]\s*(.*)$/.exec(line))
      .filter((m): m is RegExpExecArray => m !== null && billed.has(m[1] as string) && filled(unquote(m[2] as string)))
      .map((m) => m[1] as string);
    return keys.map((k) => ({ file, what: k }));
  }
  return [];
}

const unquote = (v: string) =>
  v
    .trim()
    .replace(/^(['"`])(.*)\1$/, '$2')
    .replace(/^#.*$/, '');
