import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, gitRepo, lanes, lanesEnv, lanesChild } from '../helpers/env.js';

// Issue 45, item 6: lanes new, lanes stop and lanes gc --worktrees each SIGKILLed at random points
// (LANES_FLEET_KILLS times each, default 20). Afterwards `lanes doctor --fix` settles what they
// left, `lanes doctor` is green, and no work an agent wrote was lost: each agent's file is in its
// worktree, in a snapshot, or on a branch.

const KILLS = Number(process.env['LANES_FLEET_KILLS'] ?? 20);
const MARK = '6001'; // the agents' sleep, told apart from anyone else's

/** Runs `lanes ARGS`, SIGKILLed after a random part of `typicalMs` (or let finish). */
async function killedSomewhere(args: string[], opts: { env: Record<string, string>; cwd: string }, typicalMs: number) {
  const child = lanesChild(args, opts);
  const at = Math.random() * typicalMs * 1.2;
  const timer = setTimeout(() => child.proc.kill('SIGKILL'), at);
  await child.exited;
  clearTimeout(timer);
}

async function timed(args: string[], opts: { env: Record<string, string>; cwd: string }): Promise<number> {
  const t0 = performance.now();
  await lanes(args, opts);
  return performance.now() - t0;
}

/** Every ref and worktree file that holds `text`. */
function holders(repo: string, text: string, worktrees: string[]): string[] {
  const refs = execFileSync('git', ['for-each-ref', '--format=%(refname)'], { cwd: repo, encoding: 'utf8' })
    .split('\n')
    .filter(Boolean);
  const inRefs = refs.filter((r) => spawnSync('git', ['grep', '-q', '-F', text, r], { cwd: repo }).status === 0);
  const inFiles = worktrees.filter(
    (w) => existsSync(join(w, 'f.txt')) && readFileSync(join(w, 'f.txt'), 'utf8').includes(text),
  );
  return [...inRefs, ...inFiles];
}

test(
  `lanes new, stop and gc --worktrees SIGKILLed ${KILLS} times each: doctor --fix leaves doctor green, no work lost`,
  { timeout: 900_000 },
  async () => {
    const env = lanesEnv();
    const repo = gitRepo();
    const opts = { env, cwd: repo };
    const agent = (i: number) => ['--', 'sh', '-c', `echo work-${i} > f.txt; exec sleep ${MARK}`];
    const newMs = await timed(['new', 'T-0', '--background', ...agent(0)], opts);
    for (let i = 1; i <= KILLS; i++) await killedSomewhere(['new', `T-${i}`, '--background', ...agent(i)], opts, newMs);
    // Let the agents that did start write their file.
    await new Promise((r) => setTimeout(r, 500));
    const started = JSON.parse((await lanes(['ls', '--all', '--json'], opts)).stdout) as {
      id: string;
      ticket: string;
      worktree: string;
      state: string;
    }[];
    const wrote = started.filter((s) => s.worktree && existsSync(join(s.worktree, 'f.txt')));
    const marks = wrote.map((s) => readFileSync(join(s.worktree, 'f.txt'), 'utf8').trim());
    const worktrees = started.map((s) => s.worktree).filter(Boolean);

    const live = () =>
      (
        JSON.parse(spawnSync(process.execPath, [CLI, 'ls', '--json'], { ...opts, encoding: 'utf8' }).stdout) as {
          id: string;
          state: string;
        }[]
      ).filter((s) => s.state === 'live');
    const first = live()[0];
    const stopMs = first ? await timed(['stop', first.id], opts) : 1000;
    for (let i = 0; i < KILLS; i++) {
      const s = live()[0];
      if (!s) break;
      await killedSomewhere(['stop', s.id, '--timeout', '2s'], opts, stopMs);
    }
    // Whatever still runs ends (its work snapshotted), then gc removes worktrees, killed meanwhile.
    spawnSync('pkill', ['-KILL', '-f', `sleep ${MARK}`]);
    await new Promise((r) => setTimeout(r, 300));
    const gcMs = await timed(['gc', '--worktrees', '--dry-run'], opts);
    for (let i = 0; i < KILLS; i++) await killedSomewhere(['gc', '--worktrees'], opts, gcMs * 2);

    const fixed = await lanes(['doctor', '--fix'], opts);
    if (process.env['LANES_FLEET_VERBOSE']) console.log(`${marks.length} agents wrote\n${fixed.stdout}`);
    const after = await lanes(['doctor', '--json'], opts);
    const open = (
      JSON.parse(after.stdout) as { findings: { severity: string; fixed?: string; message: string }[] }
    ).findings.filter((f) => f.severity !== 'info' && !f.fixed);
    assert.equal(
      after.code,
      0,
      `doctor is not green after --fix:\n${fixed.stdout}\n${open.map((f) => f.message).join('\n')}`,
    );
    assert.ok(marks.length > 0, 'no agent started: the storm tested nothing');
    for (const m of marks) assert.ok(holders(repo, m, worktrees).length > 0, `${m} was lost`);
  },
);
