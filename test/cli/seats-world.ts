import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { gitRepo, lanes, lanesEnv, tmp } from '../helpers/env.js';

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
