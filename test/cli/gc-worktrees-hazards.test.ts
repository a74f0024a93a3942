import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gitRepo, lanes, lanesEnv, owner, tmp } from '../helpers/env.js';
import type { WorktreeGcItem, WorktreeGcReport } from '../../src/index.js';

// What a worktree holds that neither its branch nor a snapshot keeps (found by an independent
// review, each reproduced first): commits on a detached HEAD, a worktree inside it, an ignored
// checkout in dist/, ignored files that are not rebuildable, a rebase half done; and the errors
// that must not stop a run or hide a removal.

const git = (cwd: string, ...a: string[]) => execFileSync('git', a, { cwd, encoding: 'utf8' }).trim();

async function fleet(tickets: string[]) {
  const env = { ...lanesEnv(), LANES_GC_AFTER_MS: 'off' };
  const repo = realpathSync(gitRepo());
  writeFileSync(join(repo, '.gitignore'), 'node_modules/\ndist/\n.env\n.env.local\n');
  writeFileSync(join(repo, '.env'), 'KEY=from main\n');
  git(repo, 'add', '.gitignore');
  git(repo, 'commit', '-qm', 'ignores');
  const o = await owner(env);
  const wts: Record<string, { id: string; worktree: string }> = {};
  for (const t of tickets) {
    const r = await lanes(['start', '--worktree', '--ticket', t, '--pid', o.pid, '--json'], { env, cwd: repo });
    assert.equal(r.code, 0, r.stderr);
    wts[t] = JSON.parse(r.stdout);
  }
  return { env, repo, o, wts };
}

const endAll = async (w: Awaited<ReturnType<typeof fleet>>) => {
  for (const s of Object.values(w.wts))
    assert.equal((await lanes(['end', '--force', s.id], { env: w.env, cwd: w.repo })).code, 0);
};

async function gcw(w: { env: Record<string, string>; repo: string }, ...flags: string[]) {
  const r = await lanes(['gc', '--worktrees', '--json', ...flags], { env: w.env, cwd: w.repo });
  return { code: r.code, stderr: r.stderr, report: JSON.parse(r.stdout || '{}') as WorktreeGcReport };
}

const at = (r: WorktreeGcReport, path: string): WorktreeGcItem => {
  const i = r.items.find((x) => x.path === path);
  assert.ok(i, `${path} listed: ${JSON.stringify(r.items.map((x) => [x.path, x.outcome, x.why]))}`);
  return i;
};

test('a detached HEAD no ref holds is kept under refs/lanes/kept/ before its worktree goes; one a branch holds needs none', async () => {
  const w = await fleet(['DET-1', 'DET-2']);
  const a = w.wts['DET-1']!.worktree;
  git(a, 'checkout', '-q', '--detach');
  git(a, 'commit', '-q', '--allow-empty', '-m', 'only on the detached HEAD');
  const lost = git(a, 'rev-parse', 'HEAD');
  git(w.wts['DET-2']!.worktree, 'checkout', '-q', '--detach', 'main');
  await endAll(w);
  const { code, report } = await gcw(w);
  assert.equal(code, 0);
  const i = at(report, a);
  assert.equal(i.outcome, 'removed');
  assert.match(i.notes.join(' '), /detached HEAD .* is kept as refs\/lanes\/kept\/det-1/);
  assert.equal(git(w.repo, 'rev-parse', 'refs/lanes/kept/det-1'), lost);
  assert.equal(at(report, w.wts['DET-2']!.worktree).outcome, 'removed');
  assert.equal(git(w.repo, 'for-each-ref', 'refs/lanes/kept/det-2'), '', 'main holds that one');
  await w.o.kill();
});

test('a worktree inside a lanes worktree keeps it; a clone in an ignored dist/ is never reclaimed', async () => {
  const w = await fleet(['OUTER-1', 'DIST-2']);
  const outer = w.wts['OUTER-1']!.worktree;
  const inner = join(outer, 'inner-wt');
  git(w.repo, 'worktree', 'add', '-q', '-b', 'inner', inner);
  writeFileSync(join(inner, 'wip.txt'), 'unsaved in the inner worktree\n');
  const d = w.wts['DIST-2']!.worktree;
  git(d, 'commit', '-q', '--allow-empty', '-m', 'unmerged');
  // A repository of its own in an ignored dist/ (a gh-pages clone): git ignores it whole.
  git(w.repo, 'clone', '-q', w.repo, join(d, 'dist'));
  writeFileSync(join(d, 'dist', 'page.html'), 'an unsaved page\n');
  mkdirSync(join(d, 'node_modules', 'x'), { recursive: true });
  writeFileSync(join(d, 'node_modules', 'x', 'i.js'), 'x');
  await endAll(w);
  const { report } = await gcw(w, '--reclaim');
  const o = at(report, outer);
  assert.deepEqual([o.outcome, o.rule], ['kept', 'contains-worktree']);
  assert.ok(existsSync(join(inner, 'wip.txt')));
  const r = at(report, d);
  assert.equal(r.outcome, 'reclaimed');
  assert.deepEqual(r.reclaimed, [join(d, 'node_modules')]);
  assert.equal(readFileSync(join(d, 'dist', 'page.html'), 'utf8'), 'an unsaved page\n');
  await w.o.kill();
});

test('ignored files that are not rebuildable keep the worktree unless --delete-ignored; a copy of main’s .env does not', async () => {
  const w = await fleet(['IGN-1', 'COPY-2']);
  const a = w.wts['IGN-1']!.worktree;
  writeFileSync(join(a, '.env.local'), 'MY_TOKEN=typed by hand\n');
  writeFileSync(join(w.wts['COPY-2']!.worktree, '.env'), 'KEY=from main\n');
  await endAll(w);
  const dry = await gcw(w, '--dry-run');
  assert.deepEqual([at(dry.report, a).outcome, at(dry.report, a).rule], ['kept', 'ignored-files']);
  assert.match(at(dry.report, a).why ?? '', /\.env\.local.*--delete-ignored/);
  assert.equal(at(dry.report, w.wts['COPY-2']!.worktree).outcome, 'would-remove', 'the dry run says what the run does');
  const kept = await gcw(w);
  assert.equal(at(kept.report, a).outcome, 'kept');
  assert.equal(at(kept.report, w.wts['COPY-2']!.worktree).outcome, 'removed');
  const gone = await gcw(w, '--delete-ignored');
  assert.equal(at(gone.report, a).outcome, 'removed');
  await w.o.kill();
});

test('a rebase half done keeps its worktree; a branch that cannot be deleted is a note, not a failure; a broken worktree stops nothing', async () => {
  const w = await fleet(['REB-1', 'LOCK-2', 'BROKEN-3', 'FINE-4']);
  const gitDirOf = (wt: string) => git(wt, 'rev-parse', '--absolute-git-dir');
  mkdirSync(join(gitDirOf(w.wts['REB-1']!.worktree), 'rebase-merge'));
  const broken = w.wts['BROKEN-3']!.worktree;
  const brokenGitDir = gitDirOf(broken);
  await endAll(w);
  // The branch's ref is locked by someone else's git: deleting it fails after the worktree went.
  writeFileSync(join(w.repo, '.git', 'refs', 'heads', 'lanes', 'lock-2.lock'), '');
  writeFileSync(join(broken, '.git'), 'gitdir: /nowhere/at/all\n');
  const { code, report } = await gcw(w);
  assert.equal(code, 1, 'one failed');
  assert.deepEqual(
    [at(report, w.wts['REB-1']!.worktree).outcome, at(report, w.wts['REB-1']!.worktree).rule],
    ['kept', 'operation-in-progress'],
  );
  const l = at(report, w.wts['LOCK-2']!.worktree);
  assert.equal(l.outcome, 'removed');
  assert.match(l.notes.join(' '), /kept branch lanes\/lock-2: it could not be deleted/);
  assert.equal(at(report, w.wts['FINE-4']!.worktree).outcome, 'removed', 'the run went on past the broken one');
  void brokenGitDir;
  await w.o.kill();
});

test('a lanes lock left by a killed removal is taken back; lanes end --remove-worktree works from outside the repository', async () => {
  const w = await fleet(['STALE-1', 'NAMED-2']);
  await endAll(w);
  const stale = w.wts['STALE-1']!.worktree;
  // pid 2^22+ is above Linux's pid_max default: no such process.
  git(w.repo, 'worktree', 'lock', '--reason', `lanes: removing this worktree (pid 4194999 on ${hostname()})`, stale);
  const { report } = await gcw(w, '--dry-run');
  assert.equal(at(report, stale).outcome, 'would-remove');
  assert.equal(at((await gcw(w)).report, stale).outcome, 'removed');
  // The second: a session still open, ended with --remove-worktree from a directory of no repository.
  const o2 = await owner(w.env);
  const s = await lanes(['start', '--worktree', '--ticket', 'NAMED-3', '--pid', o2.pid, '--json'], {
    env: w.env,
    cwd: w.repo,
  });
  const named = JSON.parse(s.stdout) as { id: string; worktree: string };
  // Its owner gone (a live session is not this shell's to end): open, and ended from elsewhere.
  await o2.kill();
  const end = await lanes(['end', named.id, '--remove-worktree'], { env: w.env, cwd: tmp('lanes-elsewhere-') });
  assert.equal(end.code, 0, end.stderr);
  assert.ok(!existsSync(named.worktree));
  await w.o.kill();
});

test('worktree-remove with a session id lanes cannot use exits 1 (kept), never the fail-open 0 (removed)', async () => {
  const w = await fleet(['HOOK-1']);
  const path = w.wts['HOOK-1']!.worktree;
  const r = await lanes(['hook', 'claude-code', 'worktree-remove'], {
    env: w.env,
    cwd: path,
    input: JSON.stringify({ session_id: 'has a space/and a slash', worktree_path: path }),
  });
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /worktree kept: invalid claude-code session id/);
  assert.ok(existsSync(path));
  await w.o.kill();
});
