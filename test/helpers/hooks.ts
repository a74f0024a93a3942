import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, gitRepo, lanes, lanesEnv } from './env.js';
import type { RunResult } from './env.js';

// Copied from ../shared/fixtures/agent-hooks so a clean clone of this repository has them.
export const AGENT_FIXTURES = join(ROOT, 'test', 'fixtures', 'agent-hooks');

/** A sample payload of the agents' documented format, pointed at `repo` and at one agent session. */
export function fixture(
  agent: string,
  name: string,
  repo: string,
  sessionId: string,
  edit: (p: Record<string, unknown>) => void = () => undefined,
): Record<string, unknown> {
  const text = readFileSync(join(AGENT_FIXTURES, agent, `${name}.json`), 'utf8').replaceAll('/home/dev/shop', repo);
  const p = JSON.parse(text) as Record<string, unknown>;
  if ('session_id' in p) p['session_id'] = sessionId;
  if ('conversation_id' in p) p['conversation_id'] = sessionId;
  if ('sessionId' in p) p['sessionId'] = sessionId; // Copilot CLI
  if ('sessionID' in p) p['sessionID'] = sessionId; // OpenCode (lanes' plugin)
  // The agent process lanes' OpenCode plugin names: this test process stands for it (alive).
  if ('pid' in p) p['pid'] = process.pid;
  edit(p);
  return p;
}

/**
 * Runs `lanes hook AGENT EVENT`. A hook that failed open (lanes' own trouble, allowed silently) is
 * an error here unless the test expects it: otherwise a broken path (a module left out of the hot
 * bundle, a store error) would pass as "allowed".
 */
export async function hook(
  agent: string,
  event: string,
  payload: unknown,
  options: { env: Record<string, string>; cwd: string; failOpen?: boolean },
): Promise<RunResult> {
  const { failOpen, ...run } = options;
  const r = await lanes(['hook', agent, event], {
    ...run,
    input: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });
  if (!failOpen && /failed open/.test(r.stderr))
    throw new Error(`lanes hook ${agent} ${event} failed open: ${r.stderr}`);
  return r;
}

/** The single JSON object an agent reads from the hook's stdout. */
export function answer(r: RunResult): Record<string, unknown> {
  if (r.code !== 0) throw new Error(`hook exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as Record<string, unknown>;
}

/** The hook tests' repository: src/billing/seat.ts (the file one session claims) and src/other.ts, committed; an isolated lanes home. */
export function world() {
  const repo = gitRepo();
  mkdirSync(join(repo, 'src', 'billing'), { recursive: true });
  writeFileSync(join(repo, 'src', 'billing', 'seat.ts'), 'export const limit = 1\n');
  writeFileSync(join(repo, 'src', 'other.ts'), 'export const other = 1\n');
  execFileSync('git', ['add', '-A'], { cwd: repo });
  execFileSync('git', ['commit', '-qm', 'src'], { cwd: repo });
  const env = lanesEnv();
  return { repo, env, opts: { env, cwd: repo } };
}
