import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import { gitRepo, lanes, lanesEnv, tmp } from '../helpers/env.js';

function tree(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.name === '.git') continue;
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.set(relative(dir, p), readFileSync(p));
    }
  };
  walk(dir);
  return out;
}

test(
  'snapshot and restore are byte-exact: modified, deleted, untracked, binary, non-ASCII names; index and branch untouched',
  { timeout: 60_000 },
  async () => {
    const repo = gitRepo();
    const env = lanesEnv();
    const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' });
    mkdirSync(join(repo, 'src'));
    writeFileSync(join(repo, 'src', 'keep.txt'), 'keep\n');
    writeFileSync(join(repo, 'src', 'gone.txt'), 'to be deleted\n');
    writeFileSync(join(repo, 'run.sh'), '#!/bin/sh\necho hi\n');
    chmodSync(join(repo, 'run.sh'), 0o755);
    writeFileSync(join(repo, '.gitignore'), 'ignored.log\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'base');
    const s = JSON.parse(
      (
        await lanes(['start', '--worktree', '--label', 'snap ü', '--json', '--pid', String(process.pid)], {
          env,
          cwd: repo,
        })
      ).stdout,
    );
    const wt = s.worktree as string;
    const as = { env: { ...env, LANES_SESSION: s.id }, cwd: wt };
    writeFileSync(join(wt, 'src', 'keep.txt'), 'keep, edited\n');
    rmSync(join(wt, 'src', 'gone.txt'));
    writeFileSync(join(wt, 'blob.bin'), Buffer.from([0, 1, 2, 255, 0, 10, 13, 0]));
    writeFileSync(join(wt, 'ünïcødé 😀 name.txt'), 'שלום\n');
    writeFileSync(join(wt, '-dash file.txt'), 'dash\n');
    writeFileSync(join(wt, 'ignored.log'), 'never saved\n');
    git(wt, 'add', 'blob.bin');
    const indexBefore = readFileSync(join(git(wt, 'rev-parse', '--absolute-git-dir').trim(), 'index'));
    const headBefore = git(wt, 'rev-parse', 'HEAD');
    const statusBefore = git(wt, 'status', '--porcelain');

    const snap = await lanes(['snapshot', '--json'], as);
    assert.equal(snap.code, 0, snap.stderr);
    const r = JSON.parse(snap.stdout);
    assert.equal(r.created, true);
    assert.equal(r.snapshot.ref, `refs/lanes/snapshots/${s.id}/1`);
    assert.equal(r.snapshot.parent, headBefore.trim());
    // Untouched: index bytes, HEAD, status.
    assert.ok(readFileSync(join(git(wt, 'rev-parse', '--absolute-git-dir').trim(), 'index')).equals(indexBefore));
    assert.equal(git(wt, 'rev-parse', 'HEAD'), headBefore);
    assert.equal(git(wt, 'status', '--porcelain'), statusBefore);
    assert.equal(
      JSON.parse((await lanes(['snapshot', '--json'], as)).stdout).created,
      false,
      'no new ref when nothing changed',
    );

    const expected = tree(wt);
    expected.delete('ignored.log');
    // Into a new worktree.
    const restored = JSON.parse((await lanes(['restore', `${s.id}/1`, '--json'], as)).stdout);
    const got = tree(restored.path);
    assert.deepEqual([...got.keys()].sort(), [...expected.keys()].sort());
    for (const [k, v] of expected) assert.ok(got.get(k)?.equals(v), `${k} differs`);
    assert.ok(!existsSync(join(restored.path, 'src', 'gone.txt')));
    assert.equal(statSync(join(restored.path, 'run.sh')).mode & 0o111, 0o111, 'the exec bit survives');
    assert.match(git(restored.path, 'status', '--porcelain'), /D src\/gone.txt/);
    // Into an empty directory; a non-empty one is refused.
    const dir = join(tmp(), 'out');
    const into = await lanes(['restore', `refs/lanes/snapshots/${s.id}/1`, '--into', dir], as);
    assert.equal(into.code, 0, into.stderr);
    const plain = tree(dir);
    for (const [k, v] of expected) assert.ok(plain.get(k)?.equals(v), `${k} differs in --into`);
    const again = await lanes(['restore', `${s.id}/1`, '--into', dir], as);
    assert.equal(again.code, 2);
    assert.match(again.stderr, /not empty/);
    assert.equal((await lanes(['restore', 'nope/9'], as)).code, 1);
  },
);

test(
  'lanes commit refuses claimed paths (3), a detached HEAD and a merge in progress (1); commits renames and names with spaces',
  { timeout: 60_000 },
  async () => {
    const repo = gitRepo();
    const env = lanesEnv();
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' });
    writeFileSync(join(repo, 'old name.txt'), 'content\n');
    git('add', '.');
    git('commit', '-q', '-m', 'base');
    const a = (await lanes(['start', '--pid', String(process.pid)], { env, cwd: repo })).stdout.trim();
    const b = (await lanes(['start', '--pid', String(process.pid)], { env, cwd: repo })).stdout.trim();
    await lanes(['claim', 'path:locked/'], { env: { ...env, LANES_SESSION: a }, cwd: repo });
    mkdirSync(join(repo, 'locked'));
    writeFileSync(join(repo, 'locked', 'x.txt'), 'x\n');
    const held = await lanes(['commit', '-m', 'x', '--', 'locked/x.txt'], {
      env: { ...env, LANES_SESSION: b },
      cwd: repo,
    });
    assert.equal(held.code, 3, held.stderr);
    assert.match(held.stderr, new RegExp(`claimed by session ${a}`));
    git('mv', 'old name.txt', 'new näme.txt');
    const mv = await lanes(['commit', '-m', 'rename', '--json', '--', 'old name.txt', 'new näme.txt'], {
      env: { ...env, LANES_SESSION: b },
      cwd: repo,
    });
    assert.equal(mv.code, 0, mv.stderr);
    assert.deepEqual(
      JSON.parse(mv.stdout)
        .files.map((f: { status: string; path: string }) => `${f.status} ${f.path}`)
        .sort(),
      ['A new näme.txt', 'D old name.txt'],
    );
    assert.equal(git('status', '--porcelain', '--', 'old name.txt', 'new näme.txt'), '');
    const nothing = await lanes(['commit', '-m', 'again', '--', 'new näme.txt'], { env, cwd: repo });
    assert.equal(nothing.code, 1);
    assert.match(nothing.stderr, /nothing to commit/);
    writeFileSync(join(repo, '.git', 'MERGE_HEAD'), git('rev-parse', 'HEAD'));
    const merging = await lanes(['commit', '-m', 'm', '--', 'new näme.txt'], { env, cwd: repo });
    assert.equal(merging.code, 1);
    assert.match(merging.stderr, /a merge is in progress/);
    rmSync(join(repo, '.git', 'MERGE_HEAD'));
    git('checkout', '-q', '--detach');
    writeFileSync(join(repo, 'new näme.txt'), 'changed\n');
    const detached = await lanes(['commit', '-m', 'd', '--', 'new näme.txt'], { env, cwd: repo });
    assert.equal(detached.code, 1);
    assert.match(detached.stderr, /HEAD is detached/);
    const usage = await lanes(['commit', '--', 'x'], { env, cwd: repo });
    assert.equal(usage.code, 2);
  },
);

test('restore --into refuses a file, a symlink (dangling or not) and a path through a file, writing nothing (issue 13, item 7)', async () => {
  const repo = gitRepo();
  const env = lanesEnv();
  const s = (await lanes(['start', '--pid', String(process.pid)], { env, cwd: repo })).stdout.trim();
  const as = { env: { ...env, LANES_SESSION: s }, cwd: repo };
  writeFileSync(join(repo, 'work.txt'), 'unsaved\n');
  assert.equal((await lanes(['snapshot'], as)).code, 0);
  const base = tmp();
  const file = join(base, 'file');
  writeFileSync(file, 'mine\n');
  const target = join(base, 'target');
  mkdirSync(target);
  symlinkSync(target, join(base, 'link'));
  symlinkSync(join(base, 'nowhere'), join(base, 'dangling'));
  const cases: Array<[string, RegExp]> = [
    [file, /exists and is not a directory/],
    [join(file, 'sub'), /a part of this path is a file/],
    [join(base, 'link'), /is a symlink; lanes restores only into a real directory/],
    [join(base, 'dangling'), /is a symlink/],
    ['', /--into needs a directory/],
  ];
  for (const [into, why] of cases) {
    const r = await lanes(['restore', `${s}/1`, '--into', into], as);
    assert.equal(r.code, 2, `${into}: ${r.stderr}`);
    assert.match(r.stderr, why);
    assert.doesNotMatch(r.stderr, /internal error/);
  }
  assert.deepEqual(readdirSync(target), [], 'nothing written through the link');
  assert.equal(readFileSync(file, 'utf8'), 'mine\n');
  assert.ok(!existsSync(join(base, 'nowhere')), 'the dangling link target was not created');
  // A relative --into is read from the caller's cwd.
  const sub = join(repo, 'deep');
  mkdirSync(sub);
  const rel = await lanes(['restore', `${s}/1`, '--into', 'out', '--json'], { ...as, cwd: sub });
  assert.equal(rel.code, 0, rel.stderr);
  assert.equal(JSON.parse(rel.stdout).path, join(sub, 'out'));
  assert.equal(readFileSync(join(sub, 'out', 'work.txt'), 'utf8'), 'unsaved\n');
});
