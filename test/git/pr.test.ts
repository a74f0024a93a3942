// `lanes pr` (issue 49, item 4) with Debian's gh against a local stand-in of GitHub's API
// (test/helpers/github-standin.ts) and a real bare remote: the session's branch is pushed leased
// (a second clone that pushed to it is a refusal naming it), gh opens the pull request titled from
// the ticket, its body from the session's record (redacted), the URL is journaled, a second run
// updates the same pull request, and its checks reach `lanes pr --list` and the report.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gitRepo, lanes, lanesEnv, owner, tmp } from '../helpers/env.js';
import { ghInstalled, gitHubStandIn, repoOnStandIn } from '../helpers/github-standin.js';
import { needs } from '../helpers/needs.js';

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

function commit(cwd: string, file: string, message: string): void {
  writeFileSync(join(cwd, file), `${message}\n`);
  git(cwd, 'add', '--', file);
  git(cwd, 'commit', '-q', '-m', message);
}

const SECRET = 'ghp_0123456789abcdefghijABCDEFGHIJ012345';

test(
  "lanes pr pushes leased, opens one pull request with gh from the session's record, and shows its checks",
  { timeout: 180_000, skip: needs('gh', ghInstalled()) },
  async () => {
    const hub = await gitHubStandIn({ configDir: tmp('lanes-gh-config-') });
    try {
      const bare = join(tmp('lanes-remote-'), 'origin.git');
      const repo = gitRepo();
      repoOnStandIn(hub, repo, bare);
      const env = { ...lanesEnv(), ...hub.env };
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
      const one = await start('T-1');
      const two = await start('T-2');
      assert.equal((await lanes(['claim', 'path:one.txt'], one.as)).code, 0);
      assert.equal((await lanes(['claim', 'path:shared.txt'], two.as)).code, 0);
      assert.equal((await lanes(['claim', 'path:shared.txt'], one.as)).code, 3, 'refused: a decision for the body');
      commit(one.worktree, 'one.txt', 'T-1: the cart keeps its items');
      commit(one.worktree, 'more.txt', `T-1: read the key from the vault, not ${SECRET}`);
      writeFileSync(join(one.worktree, 'scratch.txt'), 'not committed\n');

      // Seen before published: --dry-run writes the title and body and pushes nothing.
      const dry = await lanes(['pr', '--dry-run'], one.as);
      assert.equal(dry.code, 0, dry.stderr);
      assert.match(
        dry.stdout,
        /^would push lanes\/t-1 \(2 commit\(s\), [0-9a-f]{10}\) to origin and open a pull request into main:/,
      );
      assert.match(dry.stdout, /^title: T-1: the cart keeps its items$/m);
      assert.match(dry.stdout, /1 uncommitted file\(s\) in its worktree are not in it/);
      assert.equal(git(bare, 'branch', '--list', 'lanes/t-1'), '', 'nothing pushed');
      assert.equal(hub.prs.length, 0);

      // Another live session's agent may not publish this one's work.
      const theirs = await lanes(['pr', 'T-1'], two.as);
      assert.equal(theirs.code, 3, theirs.stderr);
      assert.match(theirs.stderr, /is live and not this session/);

      // Opened: pushed to the bare remote, one pull request, its body the session's record.
      const r1 = await lanes(['pr', '--json'], one.as);
      assert.equal(r1.code, 0, r1.stderr);
      const j1 = JSON.parse(r1.stdout) as { url: string; push: { from: string | null; to: string }; existed: boolean };
      assert.equal(j1.url, 'https://github.localhost/acme/widgets/pull/1');
      assert.equal(j1.push.from, null);
      assert.equal(j1.push.to, git(one.worktree, 'rev-parse', 'HEAD'));
      assert.equal(git(bare, 'rev-parse', 'refs/heads/lanes/t-1'), j1.push.to);
      assert.equal(hub.prs.length, 1);
      const pr = hub.prs[0]!;
      assert.deepEqual([pr.base, pr.head, pr.title], ['main', 'lanes/t-1', 'T-1: the cart keeps its items']);
      assert.match(
        pr.body,
        /## Commits \(2\)\n\n- [0-9a-f]{7,} T-1: the cart keeps its items\n- [0-9a-f]{7,} T-1: read the key/,
      );
      assert.match(pr.body, /- `path:one\.txt` \(held\)/);
      assert.match(pr.body, /`claim\.refuse`: .*path:shared\.txt/);
      assert.ok(!pr.body.includes(SECRET), 'the token is not sent to GitHub');
      assert.match(pr.body, /\[token hidden\]/);
      assert.deepEqual(hub.unknown, [], 'gh asked only what the stand-in answers');

      // Its checks: none yet, then one failing; a state journaled once per change.
      const list = async () => {
        const r = await lanes(['pr', '--list', '--json'], { env, cwd: repo });
        assert.equal(r.code, 0, r.stderr);
        return JSON.parse(r.stdout) as {
          pullRequests: { url: string; text: string; ticket: string }[];
          errors: string[];
        };
      };
      assert.deepEqual(
        (await list()).pullRequests.map((p) => [p.ticket, p.text]),
        [['T-1', 'open, no checks']],
      );
      pr.checks.push(
        { __typename: 'CheckRun', name: 'build', status: 'COMPLETED', conclusion: 'SUCCESS' },
        { __typename: 'CheckRun', name: 'test', status: 'COMPLETED', conclusion: 'FAILURE' },
      );
      assert.deepEqual(
        (await list()).pullRequests.map((p) => p.text),
        ['open, checks failing (test)'],
      );
      await list();
      const checks = (await lanes(['log', '--kind', 'pr', '--json'], { env, cwd: repo })).stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { kind: string }).kind);
      assert.deepEqual(checks, ['pr', 'pr.checks', 'pr.checks'], 'asked three times, changed twice');
      const report = JSON.parse((await lanes(['report', '--json'], { env, cwd: repo })).stdout) as {
        review: { ticket: string; status: string; what: string; command: string }[];
      };
      const entry = report.review.find((e) => e.ticket === 'T-1');
      assert.equal(entry?.status, 'pr open', JSON.stringify(report.review));
      assert.match(
        entry!.what,
        /T-1 has a pull request, open, checks failing \(test\): https:\/\/github\.localhost\/acme\/widgets\/pull\/1/,
      );

      // More work: pushed again (leased on what lanes pushed), the same pull request updated.
      commit(one.worktree, 'fix.txt', 'T-1: fix the failing test');
      const r2 = await lanes(['pr'], one.as);
      assert.equal(r2.code, 0, r2.stderr);
      assert.match(r2.stdout, /pushed lanes\/t-1 to origin \([0-9a-f]{10} -> [0-9a-f]{10}, leased\)/);
      assert.match(r2.stdout, /updated the open pull request https:\/\/github\.localhost\/acme\/widgets\/pull\/1/);
      assert.equal(hub.prs.length, 1, 'not opened twice');

      // A second clone pushed to the branch: refused, naming it; the remote keeps its commit.
      const other = join(tmp('lanes-clone-'), 'b');
      execFileSync('git', ['clone', '-q', '-b', 'lanes/t-1', bare, other]);
      git(other, 'config', 'user.name', 'Bea Other');
      git(other, 'config', 'user.email', 'bea@other.invalid');
      commit(other, 'bea.txt', 'Bea: a fix of her own');
      git(other, 'push', '-q', 'origin', 'lanes/t-1');
      commit(one.worktree, 'late.txt', 'T-1: late');
      const r3 = await lanes(['pr'], one.as);
      assert.equal(r3.code, 3, r3.stdout + r3.stderr);
      assert.match(
        r3.stderr,
        /origin's lanes\/t-1 has commits this branch lacks \(it is at [0-9a-f]{10}, committed by Bea Other <bea@other\.invalid>.*Bea: a fix of her own\): nothing was pushed/,
      );
      assert.equal(git(bare, 'log', '-1', '--format=%s', 'lanes/t-1'), 'Bea: a fix of her own');

      // In between: Bea pushes again while lanes' push is under way (the repository's pre-push hook,
      // once, after git read the remote's refs): the remote refuses the update (git's own check of
      // the ref's old value; with a plain --force too, tried) and lanes names her; nothing is
      // overwritten. (Between lanes' ls-remote and git's connection the lease is what refuses.)
      git(one.worktree, 'pull', '-q', '--no-rebase', '--no-edit', bare, 'lanes/t-1');
      const once = join(tmp('lanes-hook-once-'), 'moved');
      const hook = join(repo, '.git', 'hooks', 'pre-push');
      writeFileSync(
        hook,
        [
          '#!/bin/sh',
          `[ -e "${once}" ] && exit 0`,
          `touch "${once}"`,
          'unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE',
          `cd "${other}" && git pull -q --ff-only && echo again > bea2.txt && git add bea2.txt && git commit -q -m "Bea: in between" && git push -q origin lanes/t-1`,
          '',
        ].join('\n'),
      );
      chmodSync(hook, 0o755);
      const r4 = await lanes(['pr'], one.as);
      assert.equal(r4.code, 3, r4.stdout + r4.stderr);
      assert.match(
        r4.stderr,
        /origin's lanes\/t-1 moved while lanes pushed: it is at [0-9a-f]{10}, committed by Bea Other <bea@other\.invalid>.*Bea: in between; nothing was overwritten/,
      );
      assert.equal(git(bare, 'log', '-1', '--format=%s', 'lanes/t-1'), 'Bea: in between');
      rmSync(hook);

      // Careless input and missing tools: clear errors, documented codes, nothing pushed.
      const nothing = await lanes(['pr'], two.as);
      assert.equal(nothing.code, 1, nothing.stderr);
      assert.match(nothing.stderr, /nothing to open a pull request for: main already has everything on lanes\/t-2/);
      commit(two.worktree, 'two.txt', 'T-2: two');
      const noGh = await lanes(['pr'], { ...two.as, env: { ...two.as.env, PATH: pathWithoutGh() } });
      assert.equal(noGh.code, 1, noGh.stderr);
      assert.match(noGh.stderr, /the GitHub CLI \(gh\) is not installed/);
      assert.equal(git(bare, 'branch', '--list', 'lanes/t-2'), '', 'nothing pushed without gh');
      const loggedOut = { ...two.as.env, GH_HOST: '', GH_TOKEN: '', GH_CONFIG_DIR: tmp('lanes-gh-empty-') };
      const noLogin = await lanes(['pr'], { ...two.as, env: loggedOut });
      assert.equal(noLogin.code, 1, noLogin.stderr);
      assert.match(
        noLogin.stderr,
        /gh is not logged in to GitHub.*\(lanes\/t-2 is pushed to origin; no pull request was opened\)/,
      );
      assert.equal((await lanes(['pr', '--list', '--draft'], { env, cwd: repo })).code, 2);
      assert.equal((await lanes(['pr', '--title', ' '], one.as)).code, 2);
      await agent.kill();
    } finally {
      await hub.close();
    }
  },
);

/** This PATH with every directory holding gh replaced by one of links to all else it holds. */
function pathWithoutGh(): string {
  return process.env['PATH']!.split(':')
    .map((dir) => {
      if (!existsSync(join(dir, 'gh'))) return dir;
      const copy = tmp('lanes-no-gh-');
      for (const name of readdirSync(dir)) if (name !== 'gh') symlinkSync(join(dir, name), join(copy, name));
      return copy;
    })
    .join(':');
}
