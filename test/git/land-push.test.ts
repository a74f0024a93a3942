// `lanes land --push` (issue 49, item 4) against a real bare remote: the target goes to the remote
// only if the remote is still where lanes read it before landing. A second clone moves the remote
// before a landing (refused at once: nothing landed or pushed) and in between, from the landing's
// own pre-push hook (refused: nothing overwritten, the mover named).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gitRepo, lanes, lanesEnv, owner, tmp } from '../helpers/env.js';

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

function commit(cwd: string, file: string, message: string): void {
  writeFileSync(join(cwd, file), `${message}\n`);
  git(cwd, 'add', '--', file);
  git(cwd, 'commit', '-q', '-m', message);
}

test(
  'land --push publishes only onto the remote tip it read; a moved remote is refused and named, never overwritten',
  {
    timeout: 120_000,
  },
  async () => {
    const remote = join(tmp('lanes-remote-'), 'origin.git');
    execFileSync('git', ['init', '-q', '--bare', '-b', 'main', remote]);
    const repo = gitRepo();
    git(repo, 'remote', 'add', 'origin', remote);
    git(repo, 'push', '-q', '-u', 'origin', 'main');
    const other = join(tmp('lanes-clone-'), 'b');
    execFileSync('git', ['clone', '-q', remote, other]);
    git(other, 'config', 'user.name', 'Bea Other');
    git(other, 'config', 'user.email', 'bea@other.invalid');
    const env = lanesEnv();
    const agent = await owner(env);
    const start = async (ticket: string) => {
      const r = await lanes(['start', '--worktree', '--ticket', ticket, '--json', '--pid', agent.pid], {
        env,
        cwd: repo,
      });
      assert.equal(r.code, 0, r.stderr);
      const s = JSON.parse(r.stdout) as { id: string; worktree: string };
      return { ...s, as: { env: { ...env, LANES_SESSION: s.id }, cwd: s.worktree } };
    };
    const remoteMain = () => git(remote, 'rev-parse', 'refs/heads/main');

    // 1. The remote is where main is: landed and pushed, leased on that tip.
    const one = await start('T-1');
    commit(one.worktree, 'one.txt', 'T-1: one');
    const r1 = await lanes(['land', '--push', '--json'], one.as);
    assert.equal(r1.code, 0, r1.stdout + r1.stderr);
    const j1 = JSON.parse(r1.stdout) as { to: string; push: { remote: string; from: string; to: string } };
    assert.equal(j1.push.remote, 'origin');
    assert.equal(j1.push.to, j1.to);
    assert.equal(remoteMain(), git(repo, 'rev-parse', 'main'));

    // 2. Another clone pushed before this landing: refused at once, nothing landed, nothing pushed.
    git(other, 'pull', '-q', '--ff-only');
    commit(other, 'bea.txt', 'Bea: first');
    git(other, 'push', '-q');
    const two = await start('T-2');
    commit(two.worktree, 'two.txt', 'T-2: two');
    const mainBefore = git(repo, 'rev-parse', 'main');
    const r2 = await lanes(['land', '--push'], two.as);
    assert.equal(r2.code, 3, r2.stdout + r2.stderr);
    assert.match(
      r2.stderr,
      /origin's main has commits main here lacks \(it is at [0-9a-f]{10}, committed by Bea Other <bea@other\.invalid>.*Bea: first\): nothing was landed or pushed/,
    );
    assert.equal(git(repo, 'rev-parse', 'main'), mainBefore, 'nothing landed');

    // 3. In between: when the landing moves main here (after lanes read the remote, before it
    // pushes), the repository's reference-transaction hook has the other clone push first. The
    // landing stands here; the remote keeps the other clone's commit.
    git(repo, 'pull', '-q', '--ff-only', 'origin', 'main');
    const hook = join(repo, '.git', 'hooks', 'reference-transaction');
    const once = join(tmp('lanes-hook-once-'), 'moved');
    writeFileSync(
      hook,
      [
        '#!/bin/sh',
        `[ "$1" = committed ] && grep -q ' refs/heads/main$' && [ ! -e "${once}" ] || exit 0`,
        `touch "${once}"`,
        'unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE',
        `cd "${other}" && git pull -q --ff-only && echo second > bea2.txt && git add bea2.txt && git commit -q -m "Bea: in between" && git push -q`,
        '',
      ].join('\n'),
    );
    chmodSync(hook, 0o755);
    const r3 = await lanes(['land', '--push'], two.as);
    assert.equal(r3.code, 3, r3.stdout + r3.stderr);
    assert.match(r3.stdout, /^landed lanes\/t-2 on main/);
    assert.match(
      r3.stderr,
      /origin's main moved since lanes based the landing on [0-9a-f]{10}: it is at [0-9a-f]{10}, committed by Bea Other <bea@other\.invalid>.*Bea: in between; nothing was overwritten/,
    );
    assert.equal(git(remote, 'log', '-1', '--format=%s', 'main'), 'Bea: in between', 'the remote was not overwritten');
    git(repo, 'merge-base', '--is-ancestor', git(two.worktree, 'rev-parse', 'HEAD'), 'main'); // the landing stands here
    const journal = (await lanes(['log', '--kind', 'land', '--json'], { env, cwd: repo })).stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { kind: string; subject: string });
    assert.deepEqual(
      journal.filter((e) => e.kind === 'land.push' || e.subject.startsWith('push ')).map((e) => [e.kind, e.subject]),
      [
        ['land.push', 'main'],
        ['land.refuse', 'push origin main'],
      ],
    );

    // 4. The queue pushes once after its run, on the same terms.
    execFileSync('rm', ['-f', hook]);
    git(repo, 'pull', '-q', '--no-rebase', '--no-edit', 'origin', 'main');
    git(repo, 'push', '-q', 'origin', 'main');
    const three = await start('T-3');
    commit(three.worktree, 'three.txt', 'T-3: three');
    assert.equal((await lanes(['ready'], three.as)).code, 0);
    const r4 = await lanes(['land', '--queue', '--push'], { env, cwd: repo });
    assert.equal(r4.code, 0, r4.stdout + r4.stderr);
    assert.match(r4.stdout, /pushed main to origin: [0-9a-f]{10} -> [0-9a-f]{10}/);
    assert.equal(remoteMain(), git(repo, 'rev-parse', 'main'));
    assert.equal(git(remote, 'log', '-1', '--format=%s', 'main'), 'T-3: three');

    // Careless input: --remote without --push, a remote that does not exist.
    const bad = await lanes(['land', '--remote', 'origin'], three.as);
    assert.equal(bad.code, 2, bad.stderr);
    const none = await lanes(['land', '--push', '--remote', 'nope'], three.as);
    assert.equal(none.code, 2, none.stderr);
    assert.match(none.stderr, /no remote "nope" in this repository/);
    await agent.kill();
  },
);
