// lanes sweep reads what it reports about each worktree (commits ahead of main, last work, dirty
// files, the snapshot's HEAD and tree, each owner's last snapshot) in a few git processes for all
// worktrees together. This checks each figure against git asked the plain way, per worktree, in
// worktrees of every shape: ahead by merges, behind main, detached, clean, only deletions, a change
// staged and undone, a nested repository, an orphan whose owner already has snapshots.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, lstatSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gitRepo, lanes, lanesEnv, tmp } from '../helpers/env.js';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
const at = (cwd: string, when: number, ...args: string[]) =>
  execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_COMMITTER_DATE: `${when} +0000`, GIT_AUTHOR_DATE: `${when - 5000} +0000` },
  });
const commit = (cwd: string, file: string, when: number) => {
  writeFileSync(join(cwd, file), `${file} ${when}\n`);
  git(cwd, 'add', file);
  at(cwd, when, 'commit', '-q', '-m', file);
};

interface Item {
  worktree: string;
  branch: string | null;
  dirtyFiles: number;
  ahead: number;
  lastWorkAt: number;
  verdict: string;
  snapshot: { ref: string; created: boolean } | null;
  notSaved: { path: string }[];
}

/** What the sweep should say of one worktree, asked of git per worktree (sweep's reading before issue 28). */
function plainFacts(wt: string, branch: string | null) {
  const status = git(wt, 'status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames')
    .split('\0')
    .filter((r) => r.length >= 4)
    .map((r) => r.slice(3));
  const ahead =
    branch && branch !== 'refs/heads/main' ? Number(git(wt, 'rev-list', '--count', `refs/heads/main..${branch}`)) : 0;
  let newest = 0;
  for (const p of status) {
    try {
      newest = Math.max(newest, lstatSync(join(wt, p)).mtimeMs);
    } catch {
      // deleted
    }
  }
  const lastWorkAt = newest > 0 ? newest : Number(git(wt, 'log', '-1', '--format=%ct', 'HEAD')) * 1000;
  return { dirtyFiles: status.length, ahead, lastWorkAt };
}

/** The working state as a tree, through a private copy of the index (what a snapshot must hold). */
function workingTree(wt: string, exclude: string[] = []): string {
  const gitDir = git(wt, 'rev-parse', '--absolute-git-dir').trim();
  const index = join(tmp('lanes-sweep-idx-'), 'index');
  copyFileSync(join(gitDir, 'index'), index);
  const env = { ...process.env, GIT_INDEX_FILE: index };
  execFileSync('git', ['add', '-A', '--', '.', ...exclude.map((e) => `:(exclude)${e}`)], { cwd: wt, env });
  return execFileSync('git', ['write-tree'], { cwd: wt, env, encoding: 'utf8' }).trim();
}

test(
  'sweep: ahead, last work, dirty files and each snapshot agree with git asked worktree by worktree',
  { timeout: 120_000 },
  async () => {
    const repo = gitRepo();
    const env = lanesEnv();
    const t0 = 1_700_000_000;
    commit(repo, 'base.txt', t0);
    commit(repo, 'a name with spaces.txt', t0);
    const start = async (ticket: string) =>
      JSON.parse(
        (
          await lanes(['start', '--worktree', '--ticket', ticket, '--json', '--pid', String(process.pid)], {
            env,
            cwd: repo,
          })
        ).stdout,
      ) as { id: string; worktree: string };
    const ahead3 = await start('AHEAD-3');
    for (const [i, f] of ['a1', 'a2', 'a3'].entries()) commit(ahead3.worktree, f, t0 + 10 + i);
    writeFileSync(join(ahead3.worktree, 'base.txt'), 'edited\n');
    writeFileSync(join(ahead3.worktree, 'a name with spaces.txt'), 'edited\n');
    // Two lines of work merged: 2 on the branch, 2 on a side branch, and the merge commit.
    const merged = await start('MERGED');
    commit(merged.worktree, 'm1', t0 + 20);
    git(merged.worktree, 'checkout', '-q', '-b', 'side', 'HEAD~1');
    commit(merged.worktree, 's1', t0 + 21);
    commit(merged.worktree, 's2', t0 + 22);
    git(merged.worktree, 'checkout', '-q', '-');
    commit(merged.worktree, 'm2', t0 + 23);
    at(merged.worktree, t0 + 24, 'merge', '-q', '--no-edit', 'side');
    writeFileSync(join(merged.worktree, 'new file.txt'), 'untracked, with a space\n');
    // Clean, one commit ahead: its last work is that commit's time.
    const clean = await start('CLEAN');
    commit(clean.worktree, 'c1', t0 + 30);
    // Only a deletion: no mtime to read, so HEAD's time.
    const deleted = await start('DELETED');
    commit(deleted.worktree, 'd1', t0 + 40);
    rmSync(join(deleted.worktree, 'd1'));
    // A change staged, then undone in the files: status lists it, the working state is HEAD's.
    const undone = await start('UNDONE');
    writeFileSync(join(undone.worktree, 'base.txt'), 'staged\n');
    git(undone.worktree, 'add', 'base.txt');
    writeFileSync(join(undone.worktree, 'base.txt'), `base.txt ${t0}\n`);
    // Behind: main moves on after the branch was made; the branch has nothing main lacks.
    const behind = await start('BEHIND');
    writeFileSync(join(behind.worktree, 'wip.txt'), 'wip\n');
    // Detached at a commit main lacks.
    const detached = await start('DETACHED');
    commit(detached.worktree, 'x1', t0 + 50);
    git(detached.worktree, 'checkout', '-q', '--detach');
    writeFileSync(join(detached.worktree, 'x1'), 'changed\n');
    // A nested repository beside ordinary work.
    const nest = await start('NESTED');
    mkdirSync(join(nest.worktree, 'inner'));
    git(join(nest.worktree, 'inner'), 'init', '-q');
    writeFileSync(join(nest.worktree, 'inner', 'f'), 'inner\n');
    writeFileSync(join(nest.worktree, 'outer.txt'), 'outer\n');
    // A merge stopped on a conflict (status lists the path as unmerged).
    const conflict = await start('CONFLICT');
    git(conflict.worktree, 'checkout', '-q', '-b', 'theirs');
    writeFileSync(join(conflict.worktree, 'a name with spaces.txt'), 'theirs\n');
    at(conflict.worktree, t0 + 55, 'commit', '-q', '-am', 'theirs');
    git(conflict.worktree, 'checkout', '-q', '-');
    writeFileSync(join(conflict.worktree, 'a name with spaces.txt'), 'ours\n');
    at(conflict.worktree, t0 + 56, 'commit', '-q', '-am', 'ours');
    assert.throws(() => git(conflict.worktree, 'merge', '-q', 'theirs'));
    commit(repo, 'main-moved.txt', t0 + 60);
    // A worktree no session knows, whose owner (orphan.<name>) already has snapshots 1 and 4.
    const orphan = join(tmp('lanes-sweep-orphan-'), 'plain');
    git(repo, 'worktree', 'add', '-q', '-b', 'plain', orphan);
    writeFileSync(join(orphan, 'orphan.txt'), 'orphan work\n');
    const head = git(repo, 'rev-parse', 'HEAD').trim();
    for (const n of [1, 4]) git(repo, 'update-ref', `refs/lanes/snapshots/orphan.plain/${n}`, head);

    const r = await lanes(['sweep', '--json'], { env, cwd: repo });
    assert.ok(r.code === 0 || r.code === 3, r.stderr);
    const items = (JSON.parse(r.stdout) as { items: Item[] }).items;
    const byPath = new Map(items.map((i) => [i.worktree, i]));
    const expectAhead: [{ worktree: string }, number][] = [
      [ahead3, 3],
      [merged, 5],
      [clean, 1],
      [deleted, 1],
      [undone, 0],
      [behind, 0],
      [detached, 0],
      [nest, 0],
      [conflict, 1],
    ];
    for (const [w, n] of expectAhead) assert.equal(byPath.get(w.worktree)?.ahead, n, `${w.worktree}: ahead`);
    for (const it of items) {
      const plain = plainFacts(it.worktree, it.branch);
      assert.deepEqual(
        { dirtyFiles: it.dirtyFiles, ahead: it.ahead, lastWorkAt: it.lastWorkAt },
        plain,
        `${it.worktree}: the sweep's facts are git's`,
      );
    }
    assert.equal(byPath.get(clean.worktree)?.lastWorkAt, (t0 + 30) * 1000);
    assert.equal(byPath.get(deleted.worktree)?.lastWorkAt, (t0 + 40) * 1000);
    assert.equal(byPath.get(clean.worktree)?.snapshot, null);
    // Listed dirty, yet the working state is HEAD's: nothing to save, as before.
    const u = byPath.get(undone.worktree)!;
    assert.deepEqual([u.dirtyFiles, u.snapshot], [1, null]);
    // Each snapshot: the whole working state, on the HEAD of its worktree, numbered on from the owner's last.
    for (const w of [ahead3, merged, deleted, behind, detached, conflict, orphan]) {
      const path = typeof w === 'string' ? w : w.worktree;
      const snap = byPath.get(path)?.snapshot;
      assert.ok(snap?.created, `${path}: a snapshot`);
      assert.equal(git(repo, 'rev-parse', `${snap.ref}^{tree}`).trim(), workingTree(path), `${path}: its tree`);
      assert.equal(
        git(repo, 'rev-parse', `${snap.ref}^`).trim(),
        git(path, 'rev-parse', 'HEAD').trim(),
        `${path}: parent`,
      );
    }
    assert.equal(byPath.get(orphan)?.snapshot?.ref, 'refs/lanes/snapshots/orphan.plain/5');
    const n = byPath.get(nest.worktree)!;
    assert.deepEqual(
      n.notSaved.map((s) => s.path),
      ['inner/'],
    );
    assert.equal(git(repo, 'rev-parse', `${n.snapshot!.ref}^{tree}`).trim(), workingTree(nest.worktree, ['inner/']));
    // A second sweep: every owner's last snapshot is found, none is made again.
    const again = JSON.parse((await lanes(['sweep', '--json'], { env, cwd: repo })).stdout) as { items: Item[] };
    for (const it of again.items)
      assert.ok(it.snapshot === null || !it.snapshot.created, `${it.worktree}: nothing new to save`);
    // One of them changes: its owner's next number.
    writeFileSync(join(orphan, 'orphan.txt'), 'more orphan work\n');
    const third = JSON.parse((await lanes(['sweep', '--json'], { env, cwd: repo })).stdout) as { items: Item[] };
    const o = third.items.find((i) => i.worktree === orphan);
    assert.deepEqual(o?.snapshot, { ref: 'refs/lanes/snapshots/orphan.plain/6', created: true });
  },
);
