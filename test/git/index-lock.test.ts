import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gitRepo, lanes, lanesChild, lanesEnv } from '../helpers/env.js';
import { gitPause } from '../helpers/git-pause.js';

// lanes commit takes git's own index lock, created exclusively: it never writes through or removes
// a lock another writer holds, and while it holds the lock no other git writer gets in.
test(
  "lanes commit never clobbers another writer's index.lock, and holds its own exclusively",
  { timeout: 60_000 },
  async () => {
    const repo = gitRepo();
    const env = lanesEnv();
    writeFileSync(join(repo, 'a.txt'), 'v1\n');
    execFileSync('git', ['add', '.'], { cwd: repo });
    execFileSync('git', ['commit', '-qm', 'base'], { cwd: repo });
    const s = (await lanes(['start', '--pid', String(process.pid)], { env, cwd: repo })).stdout.trim();
    const as = { env: { ...env, LANES_SESSION: s }, cwd: repo };
    writeFileSync(join(repo, 'a.txt'), 'v2\n');
    const lock = join(repo, '.git', 'index.lock');
    const index = readFileSync(join(repo, '.git', 'index'));
    // Another writer (as git does: O_EXCL) holds the lock with its half-written index.
    writeFileSync(lock, "another writer's index, being written", { flag: 'wx' });
    const ino = statSync(lock).ino;
    const r = await lanes(['commit', 'a.txt', '-m', 'v2'], as);
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stderr, /another git process holds .*index\.lock/);
    assert.equal(readFileSync(lock, 'utf8'), "another writer's index, being written", 'the lock is untouched');
    assert.equal(statSync(lock).ino, ino, 'the same file, not replaced');
    assert.ok(readFileSync(join(repo, '.git', 'index')).equals(index), 'the index is untouched');
    assert.equal(execFileSync('git', ['log', '-1', '--format=%s'], { cwd: repo, encoding: 'utf8' }), 'base\n');
    rmSync(lock);

    // While lanes holds the lock (held still right before write-tree), a plain git writer is kept out.
    const pause = gitPause('write-tree', as.env);
    pause.arm();
    const committing = lanesChild(['commit', 'a.txt', '-m', 'v2'], { env: pause.env, cwd: repo });
    await pause.paused();
    const other = spawnSync('git', ['add', 'a.txt'], { cwd: repo, encoding: 'utf8' });
    assert.notEqual(other.status, 0);
    assert.match(other.stderr, /index\.lock.*File exists/);
    await pause.release();
    assert.equal((await committing.exited).code, 0, committing.stderr);
    assert.equal(execFileSync('git', ['log', '-1', '--format=%s'], { cwd: repo, encoding: 'utf8' }), 'v2\n');
  },
);
