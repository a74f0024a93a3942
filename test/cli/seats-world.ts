import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, Child, gitRepo, lanes, lanesEnv, tmp } from '../helpers/env.js';

// The world of the seats tests (seats.test.ts, seat-wait-billed.test.ts): a repository, three
// Claude Code login directories, a config file, the built CLI; a fake agent that says which login
// it runs on and which billed-per-call variables reached it; Claude Code's StopFailure payload.

export interface SeatJson {
  name: string;
  state: string;
  until: number | null;
  why: string | null;
  payPerUse: boolean;
  leasedBy: { session: string; state: string }[];
}

export function world() {
  const repo = gitRepo();
  const base = tmp('lanes-seats-');
  const dirs: [string, string, string] = ['a', 'b', 'c'].map((n) => {
    const d = join(base, `claude-${n}`);
    mkdirSync(d);
    return d;
  }) as [string, string, string];
  const config = join(base, 'config.toml');
  const env = { ...lanesEnv(), LANES_CONFIG: config, LANES_SEAT_POLL_MS: '200' };
  const run = (args: string[], extra: Record<string, string> = {}) =>
    lanes(args, { env: { ...env, ...extra }, cwd: repo });
  const seats = async () => JSON.parse((await run(['seat', 'ls', '--json'])).stdout) as SeatJson[];
  return { repo, dirs, config, env, run, seats };
}

/** The fake agent: says its login and the billed variables it sees, each time it starts, then waits. */
export const AGENT = [
  'sh',
  '-c',
  'echo "on ${CLAUDE_CONFIG_DIR:-none} keys ${ANTHROPIC_API_KEY:-}${OPENAI_API_KEY:-}${GEMINI_API_KEY:-} args $*"; exec sleep 120',
  'agent',
];

export function stopFailure(session: string, type: string, message: string): string {
  return JSON.stringify({
    session_id: `agent-${session}`,
    cwd: process.cwd(),
    hook_event_name: 'StopFailure',
    error_type: type,
    error_message: message,
  });
}

/**
 * The fake agent started on seat a (its login `w.dirs[0]`), then Claude Code's StopFailure said
 * from inside it (LANES_SESSION names the session on the seat): seat a runs out.
 */
export async function runOutOnSeatA(w: ReturnType<typeof world>, extraEnv: Record<string, string> = {}) {
  const agent = new Child(process.execPath, [CLI, 'start', '--agent', 'claude-code', '--seat', 'a', '--', ...AGENT], {
    env: { ...w.env, ...extraEnv },
    cwd: w.repo,
  });
  await agent.waitFor(new RegExp(`on ${w.dirs[0]} keys +args`));
  const session = (JSON.parse((await w.run(['ls', '--json'])).stdout) as { id: string; state: string }[]).find(
    (s) => s.state === 'live',
  )!.id;
  const hook = await lanes(['hook', 'claude-code', 'stop-failure'], {
    env: { ...w.env, LANES_SESSION: session, CLAUDE_CONFIG_DIR: w.dirs[0] },
    cwd: w.repo,
    input: stopFailure(session, 'rate_limit', "You've hit your limit · resets 4am (UTC)"),
  });
  return { agent, session, hook };
}
