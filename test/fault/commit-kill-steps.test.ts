// A SIGKILL of `lanes commit` after each git command it runs, in turn (a PATH shim for git): then
// either nothing was committed and the journal says so (or says nothing happened), or the commit
// is on the branch and the next call (lanes commit, or doctor --fix) brings the index along and
// journals it exactly once. Until then the worktree's half-followed index is recognized: a plain
// git commit there is refused by the guard (its staged "changes" would revert the commit).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gitRepo, lanes, lanesEnv } from '../helpers/env.js';
import { killingGit } from '../helpers/killing-git.js';

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

test(
  'a lanes commit killed after any of its git commands: nothing committed, or committed, followed and journaled once by the next call',
  { timeout: 600_000 },
  async () => {
    const shim = killingGit();
    const seen = { committed: 0, untouched: 0, halfFollowed: 0 };
    for (let n = 1; ; n++) {
      const repo = gitRepo();
      const env = lanesEnv();
      assert.equal((await lanes(['guard', 'install'], { env, cwd: repo })).code, 0);
      const id = (await lanes(['start', '--pid', String(process.pid)], { env, cwd: repo })).stdout.trim();
      const as = { ...env, LANES_SESSION: id };
      writeFileSync(join(repo, 'README.md'), `changed ${n}\n`);
      writeFileSync(join(repo, 'new.txt'), `new ${n}\n`);
      const old = git(repo, 'rev-parse', 'main');
      rmSync(shim.count, { force: true });
      const killed = await lanes(['commit', '-m', `c${n}`, '--', 'README.md', 'new.txt'], {
        env: { ...as, PATH: `${shim.bin}:${env['PATH']}`, LANES_KILL_AFTER_GIT: String(n) },
        cwd: repo,
      });
      if (killed.signal !== 'SIGKILL') {
        assert.equal(killed.code, 0, killed.stderr);
        assert.ok(n > 5, `lanes commit runs several git commands (${n - 1} seen)`);
        break;
      }
      const moved = git(repo, 'rev-parse', 'main') !== old;
      const staged = git(repo, 'diff', '--cached', '--name-only');
      if (moved && staged) {
        seen.halfFollowed++;
        const plain = execFileSync('sh', ['-c', 'git commit -qm "fix status" 2>&1; echo rc=$?'], {
          cwd: repo,
          env: as,
          encoding: 'utf8',
        });
        // Refused either way: by the guard, naming what happened, or by git, whose index.lock the
        // killed lanes commit held (lanes takes that one back at its next call).
        assert.match(plain, /lanes commit onto main .* was interrupted|index\.lock': File exists/, plain);
        assert.doesNotMatch(plain, /rc=0/);
      }
      // The next call finishes it: doctor --fix on odd steps, the next lanes commit on even ones.
      const next =
        n % 2
          ? await lanes(['doctor', '--fix', '--json'], { env, cwd: repo })
          : await lanes(['commit', '-m', 'again', '--', 'README.md', 'new.txt'], { env: as, cwd: repo });
      assert.notEqual(next.signal, 'SIGKILL');
      const dir = join(repo, '.git', 'lanes', 'committing');
      assert.deepEqual(
        existsSync(dir) ? readdirSync(dir) : [],
        [],
        `step ${n}: no intent left: ${next.stdout}${next.stderr}`,
      );
      assert.equal(git(repo, 'diff', '--cached', '--name-only'), '', `step ${n}: nothing staged, no reversal`);
      assert.ok(!existsSync(join(repo, '.git', 'index.lock')), `step ${n}: no index.lock left behind`);
      const log = (await lanes(['log', '--kind', 'commit', '--json'], { env, cwd: repo })).stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { kind: string; details: { commit: string } });
      const commits = log.filter((e) => e.kind === 'commit');
      const intents = log.filter((e) => e.kind === 'commit.intent');
      const aborts = log.filter((e) => e.kind === 'commit.abort');
      // Every commit on main since `old` has exactly one commit entry; every intent its outcome.
      const made = git(repo, 'rev-list', `${old}..main`).split('\n').filter(Boolean);
      assert.deepEqual(
        commits.map((e) => e.details.commit).sort(),
        [...made].sort(),
        `step ${n}: ${JSON.stringify(log.map((e) => e.kind))}`,
      );
      assert.equal(intents.length, commits.length + aborts.length, `step ${n}: every intent has its outcome`);
      if (moved) seen.committed++;
      else seen.untouched++;
    }
    assert.ok(seen.committed > 0 && seen.untouched > 0 && seen.halfFollowed > 0, JSON.stringify(seen));
  },
);
