// A reader that goes away (`lanes ls | head -1`): lanes stops quietly with exit 0, no EPIPE stack
// trace, and a follower ends as on Ctrl-C. The reading end is closed before lanes writes anything,
// so every write meets a closed pipe (no race with how fast a reader exits).
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CLI, gitRepo, lanes, lanesEnv } from '../helpers/env.js';

function withClosedStdout(args: string[], env: Record<string, string>, cwd: string) {
  const child = spawn(process.execPath, [CLI, ...args], { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.destroy();
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += String(d)));
  return new Promise<{ code: number | null; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stderr })),
  );
}

const env = lanesEnv();
const repo = gitRepo();

test('ls, --help and log into a closed pipe: exit 0, nothing on stderr', async () => {
  const s = (await lanes(['start', '--label', 'pipe'], { env, cwd: repo })).stdout.trim();
  for (let i = 0; i < 3; i++) await lanes(['claim', `lock:p${i}`], { env: { ...env, LANES_SESSION: s }, cwd: repo });
  for (const args of [['ls'], ['ls', '--all'], ['ls', '--json'], ['--help'], ['log'], ['claims', '--all']]) {
    const r = await withClosedStdout(args, env, repo);
    assert.deepEqual(r, { code: 0, stderr: '' }, `lanes ${args.join(' ')}`);
  }
});

test('log --follow into a closed pipe ends at its first write, as on Ctrl-C', { timeout: 30_000 }, async () => {
  const r = await withClosedStdout(['log', '--follow', '--since', '1h'], env, repo);
  assert.deepEqual(r, { code: 0, stderr: '' });
});
