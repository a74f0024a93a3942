import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, lanesEnv, run, tmp } from '../helpers/env.js';

// The built bundles laid out as a global install lays them out (lib/node_modules/lanes/dist and a
// relative bin symlink), so `lanes demo` runs through the symlink as an installed copy does,
// without the minutes a real `npm install` of the package takes (test/package/install.test.ts).
function installedLayout(): { bin: string; dist: string } {
  const prefix = tmp('lanes-layout-');
  const pkg = join(prefix, 'lib', 'node_modules', 'lanes');
  const dist = join(pkg, 'dist');
  mkdirSync(dist, { recursive: true });
  for (const f of ['cli.cjs', 'main.cjs', 'hot.cjs', 'quick.cjs', 'worker.js', 'index.js'])
    copyFileSync(join(ROOT, 'dist', f), join(dist, f));
  copyFileSync(join(ROOT, 'package.json'), join(pkg, 'package.json')); // "type": "module": worker.js is an ES module
  symlinkSync(join(ROOT, 'node_modules'), join(pkg, 'node_modules'));
  mkdirSync(join(prefix, 'bin'));
  symlinkSync('../lib/node_modules/lanes/dist/cli.cjs', join(prefix, 'bin', 'lanes'));
  return { bin: join(prefix, 'bin', 'lanes'), dist };
}

test(
  'a demo step whose worker fails makes lanes demo exit 1 naming the step and why, through a bin symlink',
  { timeout: 60_000 },
  async () => {
    const { bin, dist } = installedLayout();
    const env = { ...lanesEnv(), XDG_CACHE_HOME: tmp('lanes-cache-') };
    const cwd = tmp('lanes-cwd-');
    // A broken worker: each step that starts one must fail with the worker's own stderr.
    writeFileSync(join(dist, 'worker.js'), 'this is not ( javascript\n');
    const broken = await run(process.execPath, [bin, 'demo'], { env, cwd });
    assert.equal(broken.code, 1, broken.stdout + broken.stderr);
    assert.match(
      broken.stderr,
      /lanes demo: FAILED: step 1 \(handoff cross-talk\) ran to the end: a worker process exited with code 1 before printing \/ready\//,
    );
    assert.match(
      broken.stdout,
      /✘ step 1 \(handoff cross-talk\) ran to the end: .*: SyntaxError: /,
      "the worker's error is the reason",
    );
    assert.match(broken.stderr, /SyntaxError/);
    // The worker is looked up next to the real bundle, not next to the symlink (bin/worker.js).
    assert.ok(broken.stderr.includes(join(dist, 'worker.js')), broken.stderr);
    assert.match(broken.stderr, /step 4 \(unsafe clear\)/);
    assert.match(broken.stdout, /2 of \d+ checks FAILED/);
    assert.match(
      broken.stdout,
      /✔ an overlapping claim of a live holder is refused/,
      'the step without a worker still ran',
    );

    rmSync(join(dist, 'worker.js'));
    const missing = await run(process.execPath, [bin, 'demo', '--json'], { env, cwd });
    assert.equal(missing.code, 1, missing.stdout + missing.stderr);
    const out = JSON.parse(missing.stdout) as { ok: boolean; checks: { name: string; ok: boolean; detail: string }[] };
    assert.equal(out.ok, false);
    const step1 = out.checks.find((c) => c.name === 'step 1 (handoff cross-talk) ran to the end');
    assert.equal(step1?.ok, false);
    assert.match(step1?.detail ?? '', /the demo's worker .*dist\/worker\.js is missing/);
  },
);
