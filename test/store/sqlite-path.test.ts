import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { lanes, lanesEnv, tmp } from '../helpers/env.js';

// The store path is never a weapon (issue 24, item 6): lanes changes the mode only of a regular file
// it created or found to be a SQLite database. Before, `LANES_STORE=/dev/null lanes ls` as root left
// /dev/null at 0600 (every other user's process then failed), and FIFOs and other files too. The
// device here is a node of our own (mknod), so a regression cannot break the machine's /dev/null.

test('a device, FIFO, directory, a link to one, or a file that is not SQLite is refused (exit 1) and left as it is', async () => {
  const dir = tmp('lanes-store-path-');
  const env = lanesEnv();
  const fifo = join(dir, 'fifo');
  execFileSync('mkfifo', [fifo]);
  chmodSync(fifo, 0o644);
  const cases: [string, string][] = [
    [fifo, 'is a FIFO'],
    [join(dir, 'dir'), 'is a directory'],
    [join(dir, 'link-to-fifo'), 'is a FIFO'],
    [join(dir, 'notes.txt'), 'is corrupt or not a lanes store'],
  ];
  mkdirSync(join(dir, 'dir'), { mode: 0o755 });
  symlinkSync(fifo, join(dir, 'link-to-fifo'));
  writeFileSync(join(dir, 'notes.txt'), 'my notes\n', { mode: 0o644 });
  let device: string | null = join(dir, 'null-dev');
  try {
    execFileSync('mknod', [device, 'c', '1', '3']);
    chmodSync(device, 0o666);
    cases.push([device, 'is a device']);
  } catch {
    device = null; // not root: mknod refused; the other cases still run
  }
  for (const [path, what] of cases) {
    const before = lstatSync(path).mode;
    const targetBefore = statSync(path).mode;
    const r = await lanes(['ls'], { env: { ...env, LANES_STORE: path }, cwd: dir });
    assert.equal(r.code, 1, `${path}: ${r.stderr}`);
    assert.match(
      r.stderr,
      what.startsWith('is corrupt')
        ? new RegExp(`the store ${path} ${what}`)
        : new RegExp(`the store path ${path} ${what}: refused, and left as it is`),
    );
    assert.equal(lstatSync(path).mode, before, `${path}: mode unchanged`);
    assert.equal(statSync(path).mode, targetBefore, `${path}: its target's mode unchanged`);
  }
  assert.equal(readFileSync(join(dir, 'notes.txt'), 'utf8'), 'my notes\n', 'not written');
  // A real store an earlier lanes left readable by others is still tightened to 0600.
  const store = join(dir, 'lanes.db');
  assert.equal((await lanes(['ls'], { env: { ...env, LANES_STORE: store }, cwd: dir })).code, 0);
  chmodSync(store, 0o644);
  assert.equal((await lanes(['ls'], { env: { ...env, LANES_STORE: store }, cwd: dir })).code, 0);
  assert.equal(statSync(store).mode & 0o777, 0o600);
});

// LANES_HOME on a pseudo-filesystem, or under a file: Node's recursive mkdir spun forever on /proc
// (full CPU, deaf to SIGINT and SIGTERM); a file in the path was an "internal error". Each is now
// the store's error, exit 1, naming the directory and the variables that place it.
test('a LANES_HOME that cannot hold a store (/proc, /sys, under a file) is refused at once, exit 1, naming what to set', async () => {
  const dir = tmp('lanes-store-home-');
  writeFileSync(join(dir, 'a-file'), 'x');
  const cases: [string, RegExp][] = [
    ['/proc/lanes-no-such', /\/proc\/lanes-no-such cannot be made or entered \(ENOENT\)/],
    [join(dir, 'a-file', 'home'), /a part of .*a-file\/home is a file, not a directory/],
  ];
  if (statSync('/sys', { throwIfNoEntry: false })?.isDirectory())
    cases.push([
      '/sys/lanes-no-such',
      /\/sys\/lanes-no-such cannot be made or entered \((EPERM|EACCES|ENOENT|EROFS)\)/,
    ]);
  for (const [home, why] of cases)
    for (const args of [['ls'], ['start', '--label', 'x'], ['claim', 'lock:a']]) {
      const r = await lanes(args, { env: { ...lanesEnv(), LANES_HOME: home }, cwd: dir, timeoutMs: 20_000 });
      assert.equal(r.code, 1, `${home} ${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, why);
      assert.match(r.stderr, /fix: point LANES_HOME \(or LANES_STORE, or --store\)/);
      assert.doesNotMatch(r.stderr, /internal error/);
    }
});
