// `lanes top` shows a session's pull request (issue 49, item 4) in its row, with its checks as gh
// last had them: opened by `lanes pr` with Debian's gh against the local stand-in of GitHub's API.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, gitRepo, lanes, lanesEnv, owner, tmp } from '../helpers/env.js';
import { ghInstalled, gitHubStandIn, repoOnStandIn } from '../helpers/github-standin.js';
import { needs } from '../helpers/needs.js';
import { tmuxMissing } from '../helpers/tmux.js';

test(
  "lanes top shows a session's pull request and its checks in its row",
  { timeout: 120_000, skip: needs('tmux', tmuxMissing) || needs('gh', ghInstalled()) },
  async () => {
    const hub = await gitHubStandIn({ configDir: tmp('lanes-gh-config-') });
    const repo = gitRepo();
    repoOnStandIn(hub, repo, join(tmp('lanes-remote-'), 'origin.git'));
    const env: Record<string, string> = {
      ...lanesEnv(),
      ...hub.env,
      TMUX_TMPDIR: tmp('lanes-tmux-'),
      LANES_TOP_EVERY_MS: '200',
    };
    delete env['TMUX'];
    // ink draws only the last frame under CI (is-in-ci): the screen would stay empty until it quits.
    delete env['CI'];
    const agent = await owner(env);
    try {
      const r = await lanes(
        ['start', '--worktree', '--ticket', 'SHOP-4', '--label', 'cart', '--json', '--pid', agent.pid],
        { env, cwd: repo },
      );
      assert.equal(r.code, 0, r.stderr);
      const s = JSON.parse(r.stdout) as { id: string; worktree: string };
      writeFileSync(join(s.worktree, 'cart.ts'), 'export const cart = [];\n');
      execFileSync('git', ['add', 'cart.ts'], { cwd: s.worktree });
      execFileSync('git', ['commit', '-q', '-m', 'SHOP-4: a cart'], { cwd: s.worktree });
      assert.equal((await lanes(['pr'], { env: { ...env, LANES_SESSION: s.id }, cwd: s.worktree })).code, 0);
      hub.prs[0]!.checks.push({ __typename: 'StatusContext', context: 'ci/lint', state: 'FAILURE' });
      // Asked of gh (by pr --list here; lanes top asks once a minute itself), journaled, on screen.
      assert.equal((await lanes(['pr', '--list'], { env, cwd: repo })).code, 0);
      const tmux = (...args: string[]) => execFileSync('tmux', args, { env, encoding: 'utf8' });
      tmux('new-session', '-d', '-x', '120', '-y', '20', '-s', 'top', '-c', repo, '--', process.execPath, CLI, 'top');
      let screen = '';
      for (const end = Date.now() + 15_000; !/PR open, checks failing \(ci\/lint\)/.test(screen);) {
        if (Date.now() > end) assert.fail(`not on screen: the pull request\n${screen}`);
        await new Promise((r) => setTimeout(r, 100));
        screen = tmux('capture-pane', '-p', '-t', 'top:');
      }
      assert.match(screen, /SHOP-4 +cart +.*PR open, checks failing \(ci\/lint\)/);
      tmux('send-keys', '-t', 'top:', 'q');
      for (let i = 0; i < 100 && spawnSync('tmux', ['has-session', '-t', '=top'], { env }).status === 0; i++)
        await new Promise((r) => setTimeout(r, 50));
    } finally {
      spawnSync('tmux', ['kill-server'], { env });
      await agent.kill();
      await hub.close();
    }
  },
);
