import { test } from 'node:test';
import assert from 'node:assert/strict';
import { realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { LineChild, killRunning } from '../../src/cli/demo/child.js';

// The demo synchronizes on its workers' stdout lines. A worker that ends without printing the
// awaited line must reject the wait with its stderr: a wait left pending lets the event loop
// empty and `lanes demo` exit 0 having run nothing (issue 10).

test(
  'a worker that exits before its line rejects the wait with its exit code and stderr',
  { timeout: 20_000 },
  async () => {
    const kid = new LineChild(
      ['-e', 'process.stderr.write("cannot open the store\\n"); process.exit(3)'],
      process.env,
      tmpdir(),
    );
    await assert.rejects(
      kid.line(/ready/),
      /exited with code 3 before printing \/ready\/: cannot open the store\ncannot open the store/,
    );
    // Asked again after it is gone: rejects at once instead of waiting for a wake-up that never comes.
    await assert.rejects(kid.line(/done/), /exited with code 3/);
    kid.send('go'); // writing to a gone child is not an uncaught EPIPE
  },
);

test('a line printed before the exit is still found; a signal death is named', { timeout: 20_000 }, async () => {
  const ok = new LineChild(['-e', 'console.log("ready")'], process.env, tmpdir());
  assert.equal((await ok.line(/ready/))[0], 'ready');
  await ok.exited;
  const killed = new LineChild(['-e', 'console.log("holding"); setInterval(() => {}, 1000)'], process.env, tmpdir());
  await killed.line(/holding/);
  await killRunning();
  await assert.rejects(killed.line(/done/), /was killed by SIGKILL before printing \/done\/ \(nothing on stderr\)/);
});

test('children run in the cwd they are given', { timeout: 20_000 }, async () => {
  const dir = realpathSync(tmpdir());
  const kid = new LineChild(['-e', 'console.log("cwd=" + process.cwd())'], process.env, dir);
  assert.equal((await kid.line(/cwd=(.*)\n/))[1], dir);
});
