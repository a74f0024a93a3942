import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gitRepo, lanes, lanesEnv, node } from '../helpers/env.js';

test(
  'land is fenced: a taken-over holder is refused (exit 4); adopt + land publishes; conflicts are refused (exit 3)',
  { timeout: 60_000 },
  async () => {
    const repo = gitRepo();
    const env = lanesEnv();
    const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' });
    writeFileSync(join(repo, 'app.ts'), 'v1\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'base');
    const owner = node('sleeper.mjs', [], { env });
    const [, pid] = (await owner.waitFor(/ready (\d+)/)) as RegExpMatchArray;
    const a = JSON.parse(
      (await lanes(['start', '--worktree', '--ticket', 'T1', '--json', '--pid', pid!], { env, cwd: repo })).stdout,
    );
    const asA = { env: { ...env, LANES_SESSION: a.id }, cwd: a.worktree as string };
    assert.equal((await lanes(['claim', 'ticket:T1'], asA)).code, 0);
    writeFileSync(join(a.worktree, 'app.ts'), 'v2 by A\n');
    git(a.worktree, 'commit', '-q', '-am', 'A: v2');
    const mainBefore = git(repo, 'rev-parse', 'main');

    // A's owner dies; B's start takes the ticket over (token 3: A's start and claim had 1 and 2), its
    // claim again gets 4. A's land must now be refused.
    owner.proc.kill('SIGKILL');
    await owner.exited;
    const b = (
      await lanes(['start', '--ticket', 'T1', '--pid', String(process.pid)], { env, cwd: repo })
    ).stdout.trim();
    const asB = { env: { ...env, LANES_SESSION: b }, cwd: repo };
    assert.match((await lanes(['claim', 'ticket:T1'], asB)).stdout, /token 4/);
    const stale = await lanes(['land'], asA);
    assert.equal(stale.code, 4, stale.stderr);
    assert.match(stale.stderr, /does not hold ticket:T1/);
    assert.equal(git(repo, 'rev-parse', 'main'), mainBefore, 'nothing published');

    // C branches from main now, before A's work lands, and changes the same line.
    const c = JSON.parse(
      (
        await lanes(['start', '--worktree', '--ticket', 'T2', '--json', '--pid', String(process.pid)], {
          env,
          cwd: repo,
        })
      ).stdout,
    );

    // B adopts A's work and lands it: main fast-forwards and the checked-out main worktree follows.
    const adopted = await lanes(['adopt', a.id, '--json'], asB);
    assert.equal(adopted.code, 0, adopted.stderr);
    assert.equal(JSON.parse(adopted.stdout).worktree, a.worktree);
    const landed = await lanes(['land', '--json'], asB);
    assert.equal(landed.code, 0, landed.stderr);
    const r = JSON.parse(landed.stdout);
    assert.equal(r.mode, 'ff');
    // Journaled under its ticket as every other entry (it once held the claim, `ticket:T1`).
    const byTicket = (await lanes(['log', '--ticket', 'T1', '--kind', 'land', '--json'], asB)).stdout
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { kind: string; ticket: string });
    assert.deepEqual(
      byTicket.map((e) => [e.kind, e.ticket]),
      [
        ['land.intent', 'T1'],
        ['land', 'T1'],
      ],
    );
    assert.equal(git(repo, 'rev-parse', 'main').trim(), git(a.worktree, 'rev-parse', 'HEAD').trim());
    assert.equal(
      readFileSync(join(repo, 'app.ts'), 'utf8'),
      'v2 by A\n',
      'the main worktree was brought to the new commit',
    );
    assert.equal(git(repo, 'status', '--porcelain'), '');

    // A live session's work cannot be adopted.
    assert.equal((await lanes(['adopt', c.id], asB)).code, 3);
    // A conflicting branch is refused with exit 3 and publishes nothing.
    const asC = { env: { ...env, LANES_SESSION: c.id }, cwd: c.worktree as string };
    await lanes(['claim', 'ticket:T2'], asC);
    writeFileSync(join(c.worktree, 'app.ts'), 'v2 by C\n');
    git(c.worktree, 'commit', '-q', '-am', 'C: conflicting v2');
    const before = git(repo, 'rev-parse', 'main');
    const conflict = await lanes(['land'], asC);
    assert.equal(conflict.code, 3, conflict.stderr);
    assert.match(conflict.stderr, /conflicts in app.ts/);
    assert.equal(git(repo, 'rev-parse', 'main'), before);
    // Every refusal is journaled (issue 24, item 2): the conflict and the stale token above.
    const refused = (
      await lanes(['log', '--kind', 'land.refuse', '--kind', 'fence.refuse', '--json'], { env, cwd: repo })
    ).stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { kind: string; session: string; repo: string | null; details: { code: string } });
    assert.deepEqual(
      refused.map((e) => [e.kind, e.session, e.details.code]),
      [
        ['fence.refuse', a.id, 'E_FENCED'],
        ['land.refuse', c.id, 'E_FLAGGED'],
      ],
    );
    assert.ok(
      refused.every((e) => e.repo),
      'with the repository',
    );
  },
);
