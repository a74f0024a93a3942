// Incident 2 (git index sweeping) as an end-to-end test: in ONE worktree, process A commits its
// files with `lanes commit` in a loop while process B loops plain `git add <B's files> && git commit`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, Child, FIXTURES, gitRepo, lanesEnv, tmp } from '../helpers/env.js';

const ROUNDS = Number(process.env['LANES_TEST_INCIDENT_ROUNDS'] ?? 25);

test(
  `index incident: A (lanes commit) and B (git add && git commit) x ${ROUNDS} in one worktree never take each other's files`,
  { timeout: 240_000 },
  async () => {
    const repo = gitRepo();
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' });
    mkdirSync(join(repo, 'a'));
    mkdirSync(join(repo, 'b'));
    writeFileSync(join(repo, 'a', 'one file.txt'), 'A 0\n');
    writeFileSync(join(repo, 'a', '-two.txt'), 'A 0\n');
    writeFileSync(join(repo, 'b', 'f1.txt'), 'B 0\n');
    writeFileSync(join(repo, 'b', 'f2.txt'), 'B 0\n');
    git('add', '.');
    git('commit', '-q', '-m', 'files of A and B');
    const start = git('rev-parse', 'HEAD').trim();
    const env = lanesEnv();
    const stop = join(tmp(), 'a-finished');
    const a = new Child('bash', [join(FIXTURES, 'committer-a.sh'), CLI, String(ROUNDS), stop], { env, cwd: repo });
    const b = new Child('bash', [join(FIXTURES, 'committer-b.sh'), stop], { env, cwd: repo });
    await Promise.all([a.waitFor(/ready/), b.waitFor(/ready/)]);
    a.send('go');
    b.send('go');
    const [ea, eb] = await Promise.all([a.exited, b.exited]);
    assert.equal(ea.code, 0, a.stderr);
    assert.equal(eb.code, 0, b.stderr);
    const lastB = Number(/done (\d+)/.exec(b.stdout)?.[1]);

    const commits = git('rev-list', '--reverse', `${start}..HEAD`).trim().split('\n');
    let byA = 0;
    let byB = 0;
    for (const c of commits) {
      const subject = git('log', '-1', '--format=%s', c).trim();
      const files = git('diff-tree', '--no-commit-id', '-r', '--name-only', '-z', c).split('\0').filter(Boolean);
      const side = subject.startsWith('A ') ? 'a/' : subject.startsWith('B ') ? 'b/' : null;
      assert.ok(side, `unexpected commit ${subject}`);
      if (side === 'a/') byA++;
      else byB++;
      // No commit contains the other side's paths, and none reverts the other side's change
      // (a revert would show the other side's file as changed in this commit).
      for (const f of files) assert.ok(f.startsWith(side), `commit "${subject}" contains ${f}`);
      assert.ok(files.length > 0, `commit "${subject}" is empty`);
    }
    assert.equal(byA, ROUNDS, 'every lanes commit landed');
    assert.equal(byB, lastB, 'every round of B committed');
    assert.ok(byB >= ROUNDS, `B kept committing during all of A's run (${byB} commits)`);
    // The final tree holds both sides' last versions.
    assert.equal(git('show', 'HEAD:a/one file.txt'), `A version ${ROUNDS}\n`);
    assert.equal(git('show', 'HEAD:a/-two.txt'), `A ü ${ROUNDS}\n`);
    assert.equal(git('show', 'HEAD:b/f1.txt'), `B version ${lastB}\n`);
    assert.equal(git('show', 'HEAD:b/f2.txt'), `B ${lastB}\n`);
    assert.equal(readFileSync(join(repo, 'b', 'f1.txt'), 'utf8'), `B version ${lastB}\n`);
    // Nothing of A is left staged or shown as reverted.
    assert.equal(git('status', '--porcelain', '--', 'a'), '');
  },
);
