import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers/env.js';

// `npm publish --dry-run` as the release would run it (issue 25, item 3): what the registry would
// get, and what npm says about it. --ignore-scripts: dist is the build under test (the prepack
// build would rewrite it under other running tests).

interface DryRun {
  name: string;
  size: number;
  unpackedSize: number;
  files: { path: string; size: number }[];
}

test('npm publish --dry-run: only the built package, small, and npm warns of nothing but the login', () => {
  assert.ok(existsSync(join(ROOT, 'dist', 'cli.cjs')), 'build first: npm run build');
  const r = spawnSync('npm', ['publish', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, npm_config_loglevel: 'warn' },
  });
  assert.equal(r.status, 0, r.stderr);
  // npm 11 prints the report as JSON keyed by package name (older npm: the report itself).
  const parsed = JSON.parse(r.stdout) as DryRun | Record<string, DryRun>;
  const report = 'files' in parsed ? (parsed as DryRun) : Object.values(parsed)[0]!;
  const files = report.files.map((f) => f.path);
  const stray = files.filter(
    (f) =>
      !/^(package\.json|README\.md|LICENSE|dist\/.+)$/.test(f) || f.endsWith('.map') || f.startsWith('dist/types/cli/'),
  );
  assert.deepEqual(stray, [], 'nothing but package.json, README, LICENSE and dist (no source maps)');
  for (const f of ['dist/cli.cjs', 'dist/hot.cjs', 'dist/main.cjs', 'dist/index.js', 'dist/types/index.d.ts'])
    assert.ok(files.includes(f), `${f} is published`);
  // 3.0 MB when first measured (11 MB with source maps): a bundle that doubles should be a decision.
  // 4.65 MB (1.40 MB packed) on 2026-12-07, of it lanes top's ink, React and yoga (dist/top.mjs,
  // 416 KB, the library left to dist/index.js beside it): decided, for a terminal view drawn by a
  // well-kept library. 5.31 MB (1.61 MB packed) later that day, of it `lanes ls`'s own bundle
  // (dist/quick.cjs, 386 KB: ls starts without main.cjs, 2.50x -> 2.27x node -e 0) and the diff
  // view's highlight.js (93 KB): decided. 5.30 MB (1.70 MB packed) the night after, with `lanes audit`
  // (its readers and checks, ~90 KB in main.cjs and the library): decided, for a command written
  // without a parser library (tree-sitter's grammars are 0.5-1.4 MB each). The budget: 5.6 MB
  // unpacked, 1.75 MB packed (docs/install.md).
  assert.ok(report.unpackedSize < 5_600_000, `unpacked ${report.unpackedSize} bytes`);
  assert.ok(report.size < 1_750_000, `packed ${report.size} bytes`);
  // Without a login npm warns that publishing needs one; any other warning is the package's.
  const warnings = r.stderr.split('\n').filter((l) => /^npm warn/i.test(l) && !/requires you to be logged in/.test(l));
  assert.deepEqual(warnings, []);
});
