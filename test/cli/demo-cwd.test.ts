import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gitRepo, lanes, lanesEnv } from '../helpers/env.js';

// Sessions record their repository and worktree from their cwd, and ending one through the CLI or
// an agent hook snapshots that worktree: the demo's worker sessions must belong to the demo's own
// temporary repository, never to the repository the user happens to run `lanes demo` in.
test(
  'lanes demo run inside a dirty repository: every demo session is of the demo repository, the user repository untouched',
  { timeout: 120_000 },
  async () => {
    const repo = gitRepo();
    writeFileSync(join(repo, 'README.md'), 'work in progress\n');
    writeFileSync(join(repo, 'new.txt'), 'untracked\n');
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' });
    const status = git('status', '--porcelain');
    const env = lanesEnv();
    const r = await lanes(['demo', '--json', '--keep'], { env, cwd: repo });
    assert.equal(r.code, 0, r.stderr + r.stdout);
    const dir = (JSON.parse(r.stdout) as { dir: string }).dir;
    try {
      const ls = await lanes(['ls', '--all', '--json', '--store', join(dir, 'home', 'lanes.db')], { env, cwd: dir });
      assert.equal(ls.code, 0, ls.stderr);
      const sessions = JSON.parse(ls.stdout) as { label: string; cwd: string; worktree: string | null }[];
      assert.ok(
        sessions.some((s) => s.label.startsWith('race-')),
        'the workers registered sessions',
      );
      const demoRepo = realpathSync(join(dir, 'shop'));
      for (const s of sessions) {
        // The stale-sweep step gives its two sessions worktrees of their own, beside the demo repository.
        if (s.worktree?.startsWith(`${demoRepo}.lanes/`)) continue;
        assert.equal(s.worktree, demoRepo, `${s.label}: worktree`);
        assert.equal(s.cwd, demoRepo, `${s.label}: cwd`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    assert.equal(git('for-each-ref', 'refs/lanes/'), '');
    assert.equal(git('status', '--porcelain'), status);
  },
);
