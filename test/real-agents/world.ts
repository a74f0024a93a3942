import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, gitRepo, lanes, lanesEnv, tmp } from '../helpers/env.js';
import { fixture, hook } from '../helpers/hooks.js';

/**
 * One repository as a real agent finds it: lanes' hooks installed for that agent, and another live
 * session (a Claude Code session of the test's own process) that claimed `src/billing/` and edited
 * `src/other.ts`, so the agent's edits meet a claim and an early-conflict warning, and a `git
 * commit` meets the shared-worktree rule.
 */
export const OTHER_ID = 'oooooooo-1111-4111-8111-oooooooooooo';
export const OTHER = `claude-code:${OTHER_ID}`;
export const SEAT = 'src/billing/seat.ts';
export const SEAT_TEXT = 'export const limit = 1\n';
export const SHARED = 'src/other.ts';
export const SHARED_TEXT = 'export const other = 1\n';

export interface World {
  repo: string;
  /** The environment of lanes commands run by the test (the same store as the agent's hooks). */
  env: Record<string, string>;
  /** The agent's home: its config and state go here, never to the user's. */
  home: string;
  /** How the agent's hooks start lanes. */
  lanesCommand: string;
}

export async function world(agent: string): Promise<World> {
  const repo = gitRepo();
  mkdirSync(join(repo, 'src', 'billing'), { recursive: true });
  writeFileSync(join(repo, SEAT), SEAT_TEXT);
  writeFileSync(join(repo, SHARED), SHARED_TEXT);
  execFileSync('git', ['add', '-A'], { cwd: repo });
  execFileSync('git', ['commit', '-qm', 'src'], { cwd: repo });
  const env = lanesEnv();
  const home = tmp('lanes-agent-home-');
  const lanesCommand = `${process.execPath} ${CLI}`;
  const w = { repo, env, home, lanesCommand };
  await must(['hooks', 'install', agent, '--command', lanesCommand], w);

  const opts = { env, cwd: repo };
  await hook('claude-code', 'session-start', fixture('claude-code', 'session-start', repo, OTHER_ID), opts);
  await must(['claim', 'path:src/billing/', '--session', OTHER], w);
  const edited = fixture('claude-code', 'post-tool-use-edit', repo, OTHER_ID, (p) => {
    (p['tool_input'] as Record<string, string>)['file_path'] = join(repo, SHARED);
  });
  await hook('claude-code', 'post-tool-use', edited, opts);
  return w;
}

/** Runs a lanes command of the test; its failure fails the test with lanes' own words. */
export async function must(args: string[], w: Pick<World, 'env' | 'repo'>): Promise<string> {
  const r = await lanes(args, { env: w.env, cwd: w.repo });
  if (r.code !== 0) throw new Error(`lanes ${args.join(' ')} exited ${r.code}: ${r.stderr}${r.stdout}`);
  return r.stdout;
}

/**
 * The environment an agent runs in: lanes' store of the world, its own HOME, no credentials or
 * endpoints of the developer's (every *_API_KEY, *_BASE_URL and the providers' variables
 * dropped), and the fake model server as its proxy for anything not on this machine: that server
 * refuses and records it (FakeModel.egress), so a call the test did not script never leaves.
 */
export function agentEnv(w: World, proxy: string, extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  const provider =
    /^(ANTHROPIC|CLAUDE|OPENAI|CODEX|GEMINI|GOOGLE|VERTEX|COPILOT|GH|GITHUB)_|_API_KEY$|_BASE_URL$|PROXY$/i;
  for (const [k, v] of Object.entries(w.env)) if (!provider.test(k)) env[k] = v;
  return {
    ...env,
    HOME: w.home,
    XDG_CONFIG_HOME: join(w.home, '.config'),
    XDG_CACHE_HOME: join(w.home, '.cache'),
    XDG_DATA_HOME: join(w.home, '.local', 'share'),
    HTTPS_PROXY: proxy,
    HTTP_PROXY: proxy,
    https_proxy: proxy,
    http_proxy: proxy,
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
    ...extra,
  };
}

/** Claude Code's variables against the fake Messages API at `url`: no telemetry, updates or reports leave. */
export const claudeEnv = (url: string): Record<string, string> => ({
  ANTHROPIC_BASE_URL: url,
  ANTHROPIC_API_KEY: 'sk-ant-lanes-test-not-a-key',
  DISABLE_TELEMETRY: '1',
  DISABLE_AUTOUPDATER: '1',
  DISABLE_ERROR_REPORTING: '1',
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
});

export interface AgentRun {
  pid: number;
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/** Runs the agent to its end, killing its whole process group past `timeoutMs`. */
export function runAgent(
  bin: string,
  args: string[],
  options: { cwd: string; env: Record<string, string>; timeoutMs: number; input?: string },
): Promise<AgentRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { cwd: options.cwd, env: options.env, detached: true });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, options.timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ pid: child.pid!, code, signal, stdout, stderr, timedOut });
    });
    child.stdin.end(options.input ?? '');
  });
}
