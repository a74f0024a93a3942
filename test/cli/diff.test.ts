import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CLI, gitRepo, lanes, lanesEnv, owner, tmp } from '../helpers/env.js';
import { needs } from '../helpers/needs.js';
import { tmuxMissing } from '../helpers/tmux.js';
import type { SessionDiff } from '../../src/index.js';

// lanes diff (issue 49, item 1): a session's work against the merge-base of its branch and main,
// committed and uncommitted (untracked as added), read without touching the worktree's index; from
// its branch and last snapshot once its worktree is gone; paged only on a terminal. Real git, the
// built CLI, real owner processes and a real tmux pane.

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

/** A repository with a session in its own worktree holding every kind of change; main moved on after it left. */
async function world(label = 'cart') {
  const env = { ...lanesEnv(), LANES_GC_AFTER_MS: 'off' };
  const repo = gitRepo();
  writeFileSync(join(repo, 'keep.txt'), 'a\nb\nc\n');
  writeFileSync(join(repo, 'gone.txt'), 'x\ny\n');
  writeFileSync(join(repo, 'old.txt'), 'r1\nr2\nr3\nr4\nr5\n');
  git(repo, 'add', '.');
  git(repo, 'commit', '-q', '-m', 'files');
  const o = await owner(env);
  const r = await lanes(['start', '--worktree', '--ticket', 'SHOP-7', '--label', label, '--pid', o.pid, '--json'], {
    env,
    cwd: repo,
  });
  assert.equal(r.code, 0, r.stderr);
  const s = JSON.parse(r.stdout) as { id: string; worktree: string };
  const wt = s.worktree;
  // Committed on its branch.
  writeFileSync(join(wt, 'committed.txt'), 'one\ntwo\n');
  git(wt, 'add', 'committed.txt');
  git(wt, 'commit', '-q', '-m', 'committed');
  // Main moves on after the branch left: not part of the session's work.
  writeFileSync(join(repo, 'main-only.txt'), 'main\n');
  git(repo, 'add', 'main-only.txt');
  git(repo, 'commit', '-q', '-m', 'main moves on');
  // Uncommitted: a modification, a deletion, a staged rename, an untracked file.
  writeFileSync(join(wt, 'keep.txt'), 'a\nB\nc\nd\n');
  rmSync(join(wt, 'gone.txt'));
  git(wt, 'mv', 'old.txt', 'new.txt');
  writeFileSync(join(wt, 'untracked.txt'), 'u1\nu2\nu3\n');
  return { env, repo, wt, id: s.id, owner: o };
}

const indexOf = (wt: string) => join(git(wt, 'rev-parse', '--absolute-git-dir'), 'index');

function assertAllKinds(d: SessionDiff): void {
  const f = (p: string) => {
    const x = d.files.find((y) => y.path === p);
    assert.ok(x, `${p} listed: ${JSON.stringify(d.files)}`);
    return x;
  };
  assert.deepEqual(
    d.files.map((x) => x.path),
    ['committed.txt', 'gone.txt', 'keep.txt', 'new.txt', 'untracked.txt'],
    'main-only.txt (main after the merge-base) is not the session’s work',
  );
  assert.deepEqual(
    { ...f('committed.txt'), hunks: undefined, header: undefined },
    {
      path: 'committed.txt',
      status: 'added',
      additions: 2,
      deletions: 0,
      binary: false,
      uncommitted: false,
      hunks: undefined,
      header: undefined,
    },
  );
  assert.equal(f('gone.txt').status, 'deleted');
  assert.equal(f('gone.txt').deletions, 2);
  assert.equal(f('gone.txt').uncommitted, true);
  assert.equal(f('keep.txt').status, 'modified');
  assert.deepEqual([f('keep.txt').additions, f('keep.txt').deletions], [2, 1]);
  assert.equal(f('new.txt').status, 'renamed');
  assert.equal(f('new.txt').oldPath, 'old.txt');
  assert.equal(f('new.txt').uncommitted, true);
  assert.equal(f('untracked.txt').status, 'added');
  assert.deepEqual([f('untracked.txt').additions, f('untracked.txt').uncommitted], [3, true]);
}

test('committed, uncommitted, untracked, deleted and renamed files, by ticket and by label; the index untouched', async () => {
  const w = await world();
  const index = indexOf(w.wt);
  const before = readFileSync(index);
  const staged = git(w.wt, 'diff', '--cached', '--name-status');
  const j = await lanes(['diff', 'SHOP-7', '--json', '--patch'], { env: w.env, cwd: w.repo });
  assert.equal(j.code, 0, j.stderr);
  const d = JSON.parse(j.stdout) as SessionDiff;
  assert.equal(d.session, w.id);
  assert.equal(d.source, 'worktree');
  assert.equal(d.base, git(w.repo, 'merge-base', 'main', 'lanes/shop-7'));
  assert.equal(d.head, git(w.wt, 'rev-parse', 'HEAD'));
  assertAllKinds(d);
  assert.match(d.files.find((f) => f.path === 'keep.txt')!.hunks!, /^@@ -1,3 \+1,4 @@\n a\n-b\n\+B\n c\n\+d\n$/);
  // By label, --stat: one line per file, uncommitted ones marked, and the total.
  const s = await lanes(['diff', 'cart', '--stat'], { env: w.env, cwd: w.repo });
  assert.equal(s.code, 0, s.stderr);
  assert.match(s.stdout, /its worktree .* on lanes\/shop-7, against main at [0-9a-f]{10}/);
  assert.match(s.stdout, / A committed\.txt +\| 2 \+\+\n/);
  assert.match(s.stdout, / D gone\.txt \* +\| 2 --\n/);
  assert.match(s.stdout, / M keep\.txt \* +\| 3 \+\+-\n/);
  assert.match(s.stdout, / R old\.txt => new\.txt \* +\| 0\n/);
  assert.match(s.stdout, / A untracked\.txt \* +\| 3 \+\+\+\n/);
  assert.match(s.stdout, / 5 files changed, 7 insertions\(\+\), 3 deletions\(-\); \* 4 uncommitted\n/);
  // The default: the patch, untracked file as added.
  const p = await lanes(['diff', w.id], { env: w.env, cwd: w.repo });
  assert.match(p.stdout, /diff --git a\/untracked\.txt b\/untracked\.txt\nnew file mode 100644\n/);
  assert.match(p.stdout, /rename from old\.txt\nrename to new\.txt\n/);
  // The worktree's index: the same bytes, the same things staged (the rename), nothing else.
  assert.ok(readFileSync(index).equals(before), 'the index is byte-identical');
  assert.equal(git(w.wt, 'diff', '--cached', '--name-status'), staged);
  assert.match(git(w.wt, 'status', '--porcelain'), /\?\? untracked\.txt/);
});

test('its worktree removed: its branch and last snapshot, and it says so; no branch either: exit 1', async () => {
  const w = await world();
  await w.owner.kill();
  const gc = await lanes(['gc', '--worktrees'], { env: w.env, cwd: w.repo });
  assert.equal(gc.code, 0, gc.stderr + gc.stdout);
  assert.equal(existsSync(w.wt), false, 'the worktree is gone');
  const j = await lanes(['diff', 'SHOP-7', '--json'], { env: w.env, cwd: w.repo });
  assert.equal(j.code, 0, j.stderr);
  const d = JSON.parse(j.stdout) as SessionDiff;
  assert.equal(d.source, 'branch');
  assert.equal(d.branch, 'refs/heads/lanes/shop-7');
  assert.match(d.snapshot ?? '', /^refs\/lanes\/snapshots\//);
  assertAllKinds(d);
  const s = await lanes(['diff', 'SHOP-7', '--stat'], { env: w.env, cwd: w.repo });
  assert.match(s.stdout, /its branch lanes\/shop-7 and last snapshot refs\/lanes\/snapshots\/\S+, against main/);
  assert.match(s.stdout, /its worktree .* is gone/);
  // Without the snapshot: the branch's commits only.
  git(w.repo, 'update-ref', '-d', d.snapshot!);
  const c = JSON.parse((await lanes(['diff', 'SHOP-7', '--json'], { env: w.env, cwd: w.repo })).stdout) as SessionDiff;
  assert.deepEqual(
    c.files.map((f) => [f.path, f.status, f.uncommitted]),
    [['committed.txt', 'added', false]],
  );
  git(w.repo, 'branch', '-D', 'lanes/shop-7');
  const none = await lanes(['diff', 'SHOP-7'], { env: w.env, cwd: w.repo });
  assert.equal(none.code, 1);
  assert.match(none.stderr, /its worktree .* is gone and it has no branch lanes\/shop-7/);
});

test('an unknown session: exit 1 naming it', async () => {
  const env = lanesEnv();
  const repo = gitRepo();
  const r = await lanes(['diff', 's-nosuchsess'], { env, cwd: repo });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /session s-nosuchsess is not known/);
  assert.equal(r.stdout, '');
});

/** A $PAGER that leaves a mark when it runs (and shows its input). */
function markingPager(dir: string): { pager: string; mark: string } {
  const mark = join(dir, 'pager-ran');
  const pager = join(dir, 'pager.sh');
  writeFileSync(pager, `#!/bin/sh\necho ran > '${mark}'\nexec cat\n`);
  chmodSync(pager, 0o755);
  return { pager, mark };
}

test('piped: never paged', async () => {
  const w = await world();
  const dir = tmp();
  const { pager, mark } = markingPager(dir);
  writeFileSync(join(w.wt, 'long.txt'), Array.from({ length: 200 }, (_, i) => `line ${i}`).join('\n') + '\n');
  const r = await lanes(['diff', 'SHOP-7'], { env: { ...w.env, PAGER: pager }, cwd: w.repo });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /\+line 199\n/);
  assert.equal(existsSync(mark), false, 'no pager started on a pipe');
});

test('on a terminal (a tmux pane at 80x24): a long diff is paged', { skip: needs('tmux', tmuxMissing) }, async () => {
  const w = await world();
  const dir = tmp();
  const { pager, mark } = markingPager(dir);
  writeFileSync(join(w.wt, 'long.txt'), Array.from({ length: 200 }, (_, i) => `line ${i}`).join('\n') + '\n');
  const env: Record<string, string> = { ...w.env, TMUX_TMPDIR: tmp('lanes-tmux-'), PAGER: pager };
  delete env['TMUX'];
  const done = join(dir, 'done');
  const cmd = `'${process.execPath}' '${CLI}' diff SHOP-7; echo $? > '${done}.tmp'; mv '${done}.tmp' '${done}'; sleep 30`;
  execFileSync('tmux', ['new-session', '-d', '-x', '80', '-y', '24', '-s', 'diff', '-c', w.repo, cmd], { env });
  try {
    for (let i = 0; i < 150 && !existsSync(done); i++) await new Promise((r) => setTimeout(r, 100));
    assert.equal(readFileSync(done, 'utf8').trim(), '0');
    assert.equal(readFileSync(mark, 'utf8').trim(), 'ran', 'the pager ran on the terminal');
  } finally {
    spawnSync('tmux', ['kill-server'], { env });
  }
  // A short diff fits the screen: not paged.
  rmSync(mark);
  git(w.wt, 'reset', '-q', '--hard');
  git(w.wt, 'clean', '-fdq');
  rmSync(done);
  execFileSync('tmux', ['new-session', '-d', '-x', '80', '-y', '24', '-s', 'diff2', '-c', w.repo, cmd], { env });
  try {
    for (let i = 0; i < 150 && !existsSync(done); i++) await new Promise((r) => setTimeout(r, 100));
    assert.equal(readFileSync(done, 'utf8').trim(), '0');
    assert.equal(existsSync(mark), false, 'a diff shorter than the screen is not paged');
  } finally {
    spawnSync('tmux', ['kill-server'], { env });
  }
});
