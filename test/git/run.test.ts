import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GitError, git } from '../../src/git/run.js';
import { gitRepo, tmp } from '../helpers/env.js';

/** The rejection of `p` (fails the test if it resolves). */
async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  return assert.fail('expected git to fail');
}

/** Pid of this process' child `git …` whose arguments include `arg` (Linux /proc). */
function childGitWith(arg: string): number {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // Fields after "(comm)": state, ppid, …; comm may contain spaces, so split after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const argv = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      if (ppid === process.pid && argv[0] === 'git' && argv.includes(arg)) found.push(Number(name));
    } catch {
      // The process ended while we read it.
    }
  }
  assert.equal(found.length, 1, `exactly one child git reading ${arg}`);
  return found[0] as number;
}

test(
  'a git killed by a signal: the GitError names the signal, exit is null',
  { skip: !existsSync('/proc/self/stat') && 'needs Linux /proc to find the git child' },
  async () => {
    const repo = gitRepo();
    const fifo = join(tmp(), 'never-ending-input');
    execFileSync('mkfifo', [fifo]);
    // hash-object reads a file that is not a regular file until EOF; a FIFO nobody writes to and
    // nobody closes keeps it blocked for good.
    const failed = rejection(git(['hash-object', '--', fifo], { cwd: repo }));
    // Opening the FIFO for writing completes only once git has opened it for reading: from here on
    // git is running and blocked in read(), so its pid can be looked up (no sleep).
    const writer = await open(fifo, 'w');
    try {
      process.kill(childGitWith(fifo), 'SIGKILL');
      const e = await failed;
      assert.ok(e instanceof GitError, String(e));
      assert.equal(e.signal, 'SIGKILL');
      assert.equal(e.exit, null);
      assert.equal(e.details['signal'], 'SIGKILL');
      assert.equal(e.message, `git hash-object -- ${fifo} in ${repo} was killed by SIGKILL`);
    } finally {
      await writer.close();
    }
  },
);

test('output past maxBuffer: git is stopped and the GitError says the output was over the limit', async () => {
  const repo = gitRepo();
  writeFileSync(join(repo, 'big.txt'), 'x'.repeat(100 * 1024));
  execFileSync('git', ['add', 'big.txt'], { cwd: repo });
  execFileSync('git', ['commit', '-q', '-m', 'big'], { cwd: repo });
  // Under the default limit the same command succeeds.
  assert.equal((await git(['cat-file', 'blob', 'HEAD:big.txt'], { cwd: repo })).length, 100 * 1024);
  const e = await rejection(git(['cat-file', 'blob', 'HEAD:big.txt'], { cwd: repo, maxBuffer: 4096 }));
  assert.ok(e instanceof GitError, String(e));
  assert.equal(
    e.message,
    `git cat-file blob HEAD:big.txt in ${repo} produced more than 4 KiB of output on stdout (stopped)`,
  );
  assert.deepEqual(e.details['outputLimit'], { stream: 'stdout', bytes: 4096 });
  assert.equal(e.exit, null);
});

test('a git that exits with an error: exit code and first stderr line, no signal', async () => {
  const repo = gitRepo();
  const e = await rejection(git(['rev-parse', '--verify', 'no-such-branch'], { cwd: repo }));
  assert.ok(e instanceof GitError, String(e));
  assert.equal(e.exit, 128);
  assert.equal(e.signal, null);
  assert.equal(
    e.message,
    `git rev-parse --verify no-such-branch failed in ${repo} (exit 128): fatal: Needed a single revision`,
  );
});

test('input git never reads (it failed first) is a GitError, not an uncaught EPIPE', async () => {
  const repo = gitRepo();
  // Far more than a pipe buffer: the write is still going on when git exits.
  const e = await rejection(
    git(['rev-parse', '--verify', 'no-such-branch'], { cwd: repo, input: Buffer.alloc(8 * 1024 * 1024, 'x') }),
  );
  assert.ok(e instanceof GitError, String(e));
  assert.equal(e.exit, 128);
});

test('a cwd that does not exist is named as such, not reported as git missing', async () => {
  const gone = join(tmp(), 'removed-worktree');
  const e = await rejection(git(['status'], { cwd: gone }));
  assert.ok(e instanceof Error);
  assert.equal(e.message, `cannot run git status in ${gone}: no such directory`);
});

test("lanes' git status never rewrites a worktree's index (an agent's own commit at that moment must not find index.lock)", async () => {
  // A tracked file touched (same bytes, new mtime): plain `git status` refreshes the index and
  // writes it back under index.lock; lanes reads worktrees from the side (the page, ls, the sweep).
  const repo = gitRepo();
  const index = join(repo, '.git', 'index');
  const { status } = await import('../../src/git/status.js');
  const touch = () => {
    const later = new Date(Date.now() + 5_000 + Math.random() * 1_000);
    utimesSync(join(repo, 'README.md'), later, later);
  };
  touch();
  const before = statSync(index);
  assert.deepEqual(await status(repo), []);
  const after = statSync(index);
  assert.deepEqual([after.ino, after.mtimeMs], [before.ino, before.mtimeMs], 'the index was rewritten');
  // The same status outside lanes does rewrite it: the check above can fail.
  execFileSync('git', ['status', '--porcelain'], { cwd: repo, env: { ...process.env, GIT_OPTIONAL_LOCKS: '1' } });
  const plain = statSync(index);
  assert.notDeepEqual([plain.ino, plain.mtimeMs], [before.ino, before.mtimeMs]);
});
