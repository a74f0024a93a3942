import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestContext } from 'node:test';
import { skipOrFail } from '../helpers/needs.js';

/**
 * The released agent CLIs, installed from npm into a cache outside the project's dependencies:
 * `$LANES_AGENT_CACHE/<name>@<version>` (default `$XDG_CACHE_HOME/lanes-agents`, else
 * `~/.cache/lanes-agents`), one `npm install --prefix` each, at the versions pinned in
 * agents.json. A version installs once; later runs find it ready.
 */

export interface AgentPin {
  package: string;
  version: string;
  bin: string;
  /** Packages whose install script must run (Claude Code's copies its native binary into place). */
  allowScripts?: string[];
}

export type Installed =
  | { ok: true; name: string; version: string; bin: string; dir: string }
  | { ok: false; name: string; version: string; reason: string };

const PINS = JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), 'agents.json'), 'utf8')) as Record<
  string,
  AgentPin
>;

export function pin(name: string): AgentPin {
  const p = PINS[name];
  if (!p) throw new Error(`test/real-agents/agents.json has no agent ${name}`);
  return p;
}

export function cacheRoot(): string {
  const explicit = process.env['LANES_AGENT_CACHE'];
  if (explicit) return explicit;
  const xdg = process.env['XDG_CACHE_HOME'];
  return join(xdg && xdg.startsWith('/') ? xdg : join(homedir(), '.cache'), 'lanes-agents');
}

// npm's words for a registry it cannot reach or that failed to answer.
export const UNREACHABLE =
  /\b(ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|ERR_SOCKET_TIMEOUT|E429|E5\d\d)\b|network|socket hang up/i;

/** The environment without what `npm test` sets for its scripts (lowercase npm_config_*, a prefix); NPM_CONFIG_* of the user stays. */
function npmEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !k.startsWith('npm_') && k !== 'INIT_CWD') env[k] = v;
  return env;
}

/**
 * The agent's CLI from the cache, installing it first when missing. An install that fails (no
 * network, the registry refusing) is `ok: false` with npm's words: the caller reports it by name.
 */
export function ensureAgent(name: string): Installed {
  const { package: pkg, version, bin, allowScripts = [] } = pin(name);
  const dir = join(cacheRoot(), `${name}@${version}`);
  const binPath = join(dir, 'node_modules', '.bin', bin);
  const marker = join(dir, '.lanes-installed');
  if (existsSync(marker) && existsSync(binPath)) return { ok: true, name, version, bin: binPath, dir };

  // Installed beside the final place and renamed into it, so an interrupted install is never taken
  // for a finished one, and two runs installing at once each end with one complete copy.
  mkdirSync(cacheRoot(), { recursive: true });
  const staging = `${dir}.staging-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging);
  // npm 11 runs a dependency's install script only when the project allows it (package.json
  // allowScripts; older npm ignores the field and runs it); every other script is not needed.
  const allowed = Object.fromEntries(allowScripts.map((p) => [p, true]));
  writeFileSync(join(staging, 'package.json'), JSON.stringify({ private: true, allowScripts: allowed }) + '\n');
  const scripts = allowScripts.length ? [] : ['--ignore-scripts'];
  const r = spawnSync(
    'npm',
    [
      'install',
      '--prefix',
      staging,
      '--no-save',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      // Without a registry, fail in seconds rather than after npm's default retries (about a minute).
      '--fetch-retries=1',
      ...scripts,
      `${pkg}@${version}`,
    ],
    { env: npmEnv(), encoding: 'utf8', timeout: 5 * 60_000, maxBuffer: 16 * 1024 * 1024 },
  );
  if (r.status !== 0) {
    rmSync(staging, { recursive: true, force: true });
    const out = `${r.error?.message ?? ''}${r.stderr}${r.stdout}`.trim();
    const why = `npm install ${pkg}@${version} failed (exit ${r.status ?? r.signal}): ${out.split('\n').slice(0, 4).join(' | ')}`;
    // Only the network or the registry may keep an agent out of the run; any other failure of the
    // install (a refused option, a broken package) is this suite's or the agent's fault.
    if (r.error || UNREACHABLE.test(out)) return { ok: false, name, version, reason: why };
    throw new Error(why);
  }
  // Installed and not starting is the agent misbehaving (or its install script not run): a failure.
  const stagedBin = join(staging, 'node_modules', '.bin', bin);
  const v = spawnSync(stagedBin, ['--version'], { env: npmEnv(), encoding: 'utf8', timeout: 60_000 });
  if (v.status !== 0 || !v.stdout.includes(version)) {
    rmSync(staging, { recursive: true, force: true });
    throw new Error(
      `${pkg}@${version} installed but \`${bin} --version\` answered ${v.status ?? v.signal}: ${v.stdout}${v.stderr}`,
    );
  }
  writeFileSync(join(staging, '.lanes-installed'), `${pkg}@${version}\n${v.stdout}`);
  try {
    renameSync(staging, dir);
  } catch {
    // Another run finished first: its copy is complete (it has the marker), ours goes.
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(marker)) throw new Error(`${dir} exists without a finished install; remove it and rerun`);
  }
  return { ok: true, name, version, bin: binPath, dir };
}

/**
 * The agent's CLI for a test, or null when it could not be installed: said by name in the test's
 * diagnostics and skipped (or, where the registry must be reached, failed: skipOrFail).
 */
export function installedOrSkip(t: TestContext, name: string): { bin: string } | null {
  const cli = ensureAgent(name);
  if (cli.ok) return { bin: cli.bin };
  const { version } = pin(name);
  t.diagnostic(`real agent ${name}@${version}: NOT RUN, could not install: ${cli.reason}`);
  skipOrFail(t, 'the npm registry', `${name}@${version} could not be installed: ${cli.reason}`);
  return null;
}
