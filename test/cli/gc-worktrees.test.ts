import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gitRepo, lanes, lanesEnv, node, owner, tmp } from '../helpers/env.js';
import { gitPause } from '../helpers/git-pause.js';
import type { WorktreeGcItem, WorktreeGcReport } from '../../src/index.js';

// lanes gc --worktrees: the worktrees lanes made for ended and dead sessions go, their work saved
// first; live ones, busy ones, other people's and the main worktree never do. Through the real
// CLI, the real git, real owner processes.

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

async function start(env: Record<string, string>, cwd: string, pid: string, ticket: string) {
  const r = await lanes(['start', '--worktree', '--ticket', ticket, '--pid', pid, '--json'], { env, cwd });
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout) as { id: string; worktree: string };
}

async function gcw(env: Record<string, string>, cwd: string, ...flags: string[]): Promise<WorktreeGcReport> {
  const r = await lanes(['gc', '--worktrees', '--json', ...flags], { env, cwd });
  assert.equal(r.code, 0, r.stderr + r.stdout);
  return JSON.parse(r.stdout) as WorktreeGcReport;
}

const byPath = (r: WorktreeGcReport, path: string): WorktreeGcItem => {
  const i = r.items.find((x) => x.path === path);
  assert.ok(i, `${path} is listed: ${JSON.stringify(r.items.map((x) => x.path))}`);
  return i;
};

function bigNodeModules(worktree: string): void {
  mkdirSync(join(worktree, 'node_modules', 'left-pad'), { recursive: true });
  writeFileSync(join(worktree, 'node_modules', 'left-pad', 'index.js'), 'x'.repeat(200_000));
}

test('ended and dead sessions’ worktrees go with their work saved; live, busy, locked and hand-made ones stay', async () => {
  const env = { ...lanesEnv(), LANES_GC_AFTER_MS: 'off' };
  const repo = gitRepo();
  writeFileSync(join(repo, '.gitignore'), 'node_modules/\n');
  git(repo, 'add', '.gitignore');
  git(repo, 'commit', '-qm', 'ignore');
  const keeper = await owner(env);
  const doomed = await owner(env);
  const merged = await start(env, repo, keeper.pid, 'MERGED-1');
  const unmerged = await start(env, repo, keeper.pid, 'WIP-2');
  const dead = await start(env, repo, doomed.pid, 'DEAD-3');
  const live = await start(env, repo, keeper.pid, 'LIVE-4');
  const busy = await start(env, repo, keeper.pid, 'BUSY-5');
  const locked = await start(env, repo, keeper.pid, 'LOCKED-6');
  // A worktree someone made by hand, beside lanes' own, on a branch named as lanes names them.
  const handmade = join(dirname(merged.worktree), 'by-hand');
  git(repo, 'worktree', 'add', '-q', '-b', 'lanes/by-hand', handmade);

  bigNodeModules(merged.worktree);
  git(unmerged.worktree, 'commit', '-q', '--allow-empty', '-m', 'unmerged work');
  writeFileSync(join(unmerged.worktree, 'notes.md'), 'eight hours of thinking\n');
  writeFileSync(join(dead.worktree, 'half-done.ts'), 'export const x = 1;\n');
  git(repo, 'worktree', 'lock', '--reason', 'the user’s own lock', locked.worktree);
  for (const s of [merged, unmerged, busy, locked])
    assert.equal((await lanes(['end', '--force', s.id], { env, cwd: repo })).code, 0);
  await doomed.kill();
  // Someone's shell still stands in the busy one.
  const shell = node('sleeper.mjs', [], { env, cwd: busy.worktree });
  await shell.waitFor(/ready/);

  const dry = await gcw(env, repo, '--dry-run');
  assert.deepEqual(
    dry.ended.items.map((i) => [i.session, i.outcome]),
    [[dead.id, 'would-reap']],
  );
  assert.equal(byPath(dry, merged.worktree).outcome, 'would-remove');
  assert.equal(byPath(dry, unmerged.worktree).outcome, 'would-remove');
  assert.equal(byPath(dry, dead.worktree).outcome, 'would-remove', 'a dead session does not keep its worktree');
  assert.ok(existsSync(merged.worktree) && existsSync(dead.worktree), 'a dry run removes nothing');

  const r = await gcw(env, repo);
  assert.deepEqual(
    r.ended.items.map((i) => [i.session, i.outcome]),
    [[dead.id, 'reaped']],
  );
  const m = byPath(r, merged.worktree);
  assert.equal(m.outcome, 'removed');
  assert.equal(m.merged, true);
  assert.equal(m.branchDeleted, 'lanes/merged-1');
  assert.ok(m.bytes !== null && m.bytes >= 200_000, `disk usage counted: ${m.bytes}`);
  assert.ok(!existsSync(merged.worktree));

  const u = byPath(r, unmerged.worktree);
  assert.equal(u.outcome, 'removed');
  assert.equal(u.merged, false);
  assert.equal(u.unsaved, 1);
  assert.equal(u.branchDeleted, null, 'an unmerged branch is kept');
  assert.ok(u.snapshot, 'its uncommitted file was snapshotted first');
  assert.equal(git(repo, 'show', `${u.snapshot}:notes.md`), 'eight hours of thinking');
  assert.ok(git(repo, 'log', '--format=%s', 'lanes/wip-2').includes('unmerged work'), 'its commits stay on the branch');

  // The dead session's file: saved by its end (plain gc), then the worktree went.
  const d = byPath(r, dead.worktree);
  assert.equal(d.outcome, 'removed');
  const saved = r.ended.items[0]!.snapshot!;
  assert.equal(git(repo, 'show', `${saved}:half-done.ts`), 'export const x = 1;');

  assert.deepEqual([byPath(r, live.worktree).outcome, byPath(r, live.worktree).rule], ['kept', 'live-session']);
  assert.deepEqual([byPath(r, busy.worktree).outcome, byPath(r, busy.worktree).rule], ['kept', 'process-inside']);
  assert.match(byPath(r, busy.worktree).why ?? '', new RegExp(`pid ${shell.proc.pid}`));
  assert.deepEqual([byPath(r, locked.worktree).outcome, byPath(r, locked.worktree).rule], ['kept', 'locked']);
  for (const p of [live.worktree, busy.worktree, locked.worktree, handmade, repo]) assert.ok(existsSync(p), p);
  assert.ok(!r.items.some((i) => i.path === handmade), 'a worktree lanes did not make is not even listed');
  assert.equal(r.notMadeByLanes, 1);
  assert.equal(r.freedBytes, m.bytes! + u.bytes! + d.bytes!);

  const log = await lanes(['log', '--kind', 'worktree', '--json'], { env, cwd: repo });
  const kinds = log.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { kind: string; subject: string })
    .map((e) => [e.kind, e.subject]);
  assert.deepEqual(
    kinds.sort(),
    [
      ['worktree.remove', dead.worktree],
      ['worktree.remove', merged.worktree],
      ['worktree.remove', unmerged.worktree],
    ].sort(),
  );

  // The person's view: what went, what stayed and why, what was freed.
  const text = await lanes(['gc', '--worktrees', '--dry-run'], { env: { ...env, COLUMNS: '200' }, cwd: repo });
  assert.match(text.stdout, /• \S+live-\d+: live session \S+ uses it/);
  assert.match(text.stdout, /1 other worktree\(s\) were not made by lanes: left alone/);
  shell.proc.stdin.end();
  await keeper.kill();
});

test('--reclaim: an unmerged worktree keeps its work and loses only ignored rebuildable directories', async () => {
  const env = { ...lanesEnv(), LANES_GC_AFTER_MS: 'off' };
  const repo = gitRepo();
  writeFileSync(join(repo, '.gitignore'), 'node_modules/\ndist/\n.env\n');
  mkdirSync(join(repo, 'vendor', 'node_modules'), { recursive: true });
  writeFileSync(join(repo, 'vendor', 'node_modules', 'tracked.js'), 'tracked on purpose\n');
  git(repo, 'add', '-f', '.gitignore', 'vendor');
  git(repo, 'commit', '-qm', 'a tracked node_modules');
  const o = await owner(env);
  const s = await start(env, repo, o.pid, 'WIP-9');
  git(s.worktree, 'commit', '-q', '--allow-empty', '-m', 'unmerged');
  bigNodeModules(s.worktree);
  mkdirSync(join(s.worktree, 'packages', 'a', 'dist'), { recursive: true });
  writeFileSync(join(s.worktree, 'packages', 'a', 'dist', 'out.js'), 'built\n');
  writeFileSync(join(s.worktree, '.env'), 'SECRET=ignored but not rebuildable\n');
  writeFileSync(join(s.worktree, 'draft.md'), 'untracked work\n');
  // A link named node_modules points outside: what it points at is not the worktree's to delete.
  const outside = tmp('lanes-outside-');
  writeFileSync(join(outside, 'precious'), 'keep\n');
  mkdirSync(join(s.worktree, 'tools'));
  symlinkSync(outside, join(s.worktree, 'tools', 'node_modules'));
  assert.equal((await lanes(['end', '--force', s.id], { env, cwd: repo })).code, 0);

  const r = await gcw(env, repo, '--reclaim');
  const i = byPath(r, s.worktree);
  assert.equal(i.outcome, 'reclaimed');
  assert.deepEqual(i.reclaimed.map((p) => p.slice(s.worktree.length + 1)).sort(), ['node_modules', 'packages/a/dist']);
  assert.ok(i.freedBytes >= 200_000);
  assert.ok(!existsSync(join(s.worktree, 'node_modules')));
  assert.ok(!existsSync(join(s.worktree, 'packages', 'a', 'dist')));
  for (const kept of ['.env', 'draft.md', 'vendor/node_modules/tracked.js', 'tools/node_modules'])
    assert.ok(existsSync(join(s.worktree, kept)), `${kept} stays`);
  assert.equal(readFileSync(join(outside, 'precious'), 'utf8'), 'keep\n');

  // Nothing left to reclaim: kept, said so, nothing freed.
  const again = byPath(await gcw(env, repo, '--reclaim'), s.worktree);
  assert.deepEqual([again.outcome, again.freedBytes], ['kept', 0]);
  assert.match(again.why ?? '', /nothing rebuildable/);
  await o.kill();
});

test('--merged and --older-than keep what they leave out; bad values are usage errors', async () => {
  const env = { ...lanesEnv(), LANES_GC_AFTER_MS: 'off' };
  const repo = gitRepo();
  const o = await owner(env);
  const a = await start(env, repo, o.pid, 'A-1');
  const b = await start(env, repo, o.pid, 'B-2');
  git(b.worktree, 'commit', '-q', '--allow-empty', '-m', 'unmerged');
  for (const s of [a, b]) await lanes(['end', '--force', s.id], { env, cwd: repo });

  const recent = await gcw(env, repo, '--older-than', '1d');
  assert.deepEqual(
    recent.items.map((i) => [basename(i.path), i.outcome, i.rule]),
    [
      ['a-1', 'kept', 'filter'],
      ['b-2', 'kept', 'filter'],
    ],
  );
  const merged = await gcw(env, repo, '--merged');
  assert.deepEqual(
    merged.items.map((i) => [basename(i.path), i.outcome]),
    [
      ['a-1', 'removed'],
      ['b-2', 'kept'],
    ],
  );
  assert.match(byPath(merged, b.worktree).why ?? '', /not merged/);

  for (const [args, said] of [
    [['--worktrees', '--older-than', 'soon'], /--older-than/],
    [['--merged'], /--merged goes with --worktrees/],
    [['--worktrees', '--limit', '3'], /--limit does not go with --worktrees/],
  ] as const) {
    const r = await lanes(['gc', ...args], { env, cwd: repo });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, said);
  }
  const outside = await lanes(['gc', '--worktrees'], { env, cwd: tmp('lanes-nowhere-') });
  assert.equal(outside.code, 2);
  assert.match(outside.stderr, /not inside a git repository/);
  await o.kill();
});

test('a session that starts in a worktree while gc is about to remove it keeps it (checked again under git’s lock)', async () => {
  const env = { ...lanesEnv(), LANES_GC_AFTER_MS: 'off' };
  const repo = gitRepo();
  const o = await owner(env);
  const s = await start(env, repo, o.pid, 'RACE-1');
  await lanes(['end', '--force', s.id], { env, cwd: repo });
  const pause = gitPause('lock', env);
  pause.arm();
  const gc = lanes(['gc', '--worktrees', '--json'], { env: pause.env, cwd: repo });
  await pause.paused();
  // In the window between gc's first look and its lock, an agent starts working there.
  const late = await lanes(['start', '--pid', o.pid, '--label', 'late', '--json'], { env, cwd: s.worktree });
  assert.equal(late.code, 0, late.stderr);
  await pause.release();
  const r = await gc;
  assert.equal(r.code, 0, r.stderr);
  const item = byPath(JSON.parse(r.stdout) as WorktreeGcReport, s.worktree);
  assert.deepEqual([item.outcome, item.rule], ['kept', 'live-session']);
  assert.ok(existsSync(s.worktree));
  assert.equal(git(repo, 'worktree', 'list', '--porcelain').includes('locked'), false, 'the lock is let go');
  await o.kill();
});
