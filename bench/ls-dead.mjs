// bench/ls-dead: `lanes ls` (the default view) and `ls --all` against the number of dead sessions
// (issue 48, item 5), each against `node -e 0`, a floor (node opening the SQLite store and counting
// the dead in their index) and lanes' own floor (the same `ls` on a store of the 9 live sessions
// alone), measured alternating in the same run, with peak memory (wait4's rusage). Stores of 1,000
// and 20,000 sessions as after months of nights: 9 live, 60% of the others dead and recorded so (as
// the first listing after each death did), 40% ended; 112 dead hold a claim each (more than the 50
// shown); every 100th dead session worked in its own worktree, two of which are still on disk (one
// with unsaved work, one clean), the others removed. Filled through the store API
// (bench/scale-seed.ts). Before and after in one run: --dist NEW,OLD with --roots NEW_ROOT,OLD_ROOT
// (each root's bench/scale-seed.ts fills its own stores: older code refuses a newer schema).
// Usage: node bench/ls-dead.mjs [--runs 11] [--sessions 1000,20000] [--dist D1,D2] [--roots R1,R2] [--all-runs 5] [--on-disk 2]
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { ROOT, percentile, scratch, table } from './lib.mjs';

const opt = (name, dflt) => (process.argv.indexOf(name) > 0 ? process.argv[process.argv.indexOf(name) + 1] : dflt);
const RUNS = Number(opt('--runs', 11));
const ALL_RUNS = Number(opt('--all-runs', 5)); // ls --all at 20,000 rows takes seconds: fewer
const ON_DISK = Number(opt('--on-disk', 2)); // how many of s-dead250 (dirty) and s-dead350 (clean) exist
const SIZES = opt('--sessions', '1000,20000').split(',').map(Number);
const DISTS = opt('--dist', join(ROOT, 'dist')).split(',');
const ROOTS = opt('--roots', DISTS.map(() => ROOT).join(',')).split(',');
const base = scratch('lanes-bench-ls-dead-');
const env = { ...process.env, NO_COLOR: '1', COLUMNS: '160', LANES_GC_AFTER_MS: 'off' };
for (const k of ['LANES_SESSION', 'LANES_STORE', 'LANES_HOME']) delete env[k];
const git = { GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@b' };
const sh = (cmd, cwd) => execFileSync('bash', ['-c', cmd], { cwd, env: { ...env, ...git } }).toString();
const repo = join(base, 'repo');
mkdirSync(repo);
sh('git init -q -b main && echo a > a && git add a && git commit -q -m i', repo);
const owner = spawn('sleep', ['100000'], { stdio: 'ignore' });
owner.unref();
process.on('exit', () => owner.kill());

// The floor: what any answer costs, node and the store opened and one count in an index.
const FLOOR = `const { DatabaseSync } = require('node:sqlite'); const db = new DatabaseSync(process.env.LANES_STORE);
db.prepare('SELECT count(*) AS n FROM sessions WHERE ended_at IS NULL AND dead_seen_at = last_seen_at').get();`;

// Each command's own wall time, CPU time (user + system, its waited-for children's included: git)
// and peak memory, from wait4's rusage (microseconds; /usr/bin/time rounds CPU to 10 ms, a third
// of node -e 0). CPU time feels a loaded machine less than wall time does.
const RUSAGE = `import os, sys, time
t = time.perf_counter()
pid = os.posix_spawn(sys.argv[1], sys.argv[1:], os.environ)
_, status, ru = os.wait4(pid, 0)
w = time.perf_counter() - t
print(f"WALL {w * 1000:.3f} CPU {(ru.ru_utime + ru.ru_stime) * 1000:.3f} MAXRSS {ru.ru_maxrss}", file=sys.stderr)
sys.exit(os.waitstatus_to_exitcode(status))`;

/** Runs a command with stdout to /dev/null: its wall time and CPU time (ms) and peak resident memory (MiB). */
function run(args, extra) {
  const r = spawnSync('python3', ['-c', RUSAGE, ...args], {
    cwd: repo,
    env: { ...env, ...extra },
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`${args.join(' ')}: exit ${r.status}: ${r.stderr}`);
  const [, wall, cpu, rss] = /WALL ([\d.]+) CPU ([\d.]+) MAXRSS (\d+)/.exec(r.stderr) ?? [];
  return { ms: Number(wall), cpu: Number(cpu), mib: Number(rss) / 1024 };
}

// lanes' own floor: the same command on a store of the 9 live sessions alone (the first build's).
const small = join(base, 'store-live.db');
const smallSpec = { live: 9, dead: 0, ended: 0, claims: 8, repo: join(repo, '.git'), worktree: repo, dirs: 25 };
const seededSmall = spawnSync(
  process.execPath,
  [
    '--import',
    'tsx',
    join(ROOTS[0], 'bench', 'scale-seed.ts'),
    small,
    JSON.stringify({ ...smallSpec, ownerPid: owner.pid }),
  ],
  { cwd: ROOTS[0], env, encoding: 'utf8' },
);
if (seededSmall.status !== 0) throw new Error(seededSmall.stderr);
const rows = [];
const loads = [loadavg()[0]];
for (const n of SIZES) {
  const dead = Math.round((n - 9) * 0.6);
  const wts = join(base, `wt-${n}`);
  const spec = {
    live: 9,
    dead,
    ended: n - 9 - dead,
    claims: 120, // round-robin from the second live session: 8 live ones and the first 112 dead hold one each
    repo: join(repo, '.git'),
    worktree: repo,
    ownerPid: owner.pid,
    dirs: 25,
    ownWorktrees: { dir: wts, every: 100 },
    recordDead: true,
  };
  // Two of the dead sessions' own worktrees are still there: s-dead250 with unsaved work, s-dead350 clean.
  if (ON_DISK > 0) sh(`git worktree add -q --detach ${wts}/s-dead250`, repo);
  if (ON_DISK > 1) sh(`git worktree add -q --detach ${wts}/s-dead350`, repo);
  if (ON_DISK > 0) writeFileSync(join(wts, 's-dead250', 'unsaved.txt'), 'x\n');
  const targets = DISTS.map((dist, d) => {
    const store = join(base, `store-${n}-${d}.db`);
    const seeded = spawnSync(
      process.execPath,
      ['--import', 'tsx', join(ROOTS[d], 'bench', 'scale-seed.ts'), store, JSON.stringify(spec)],
      { cwd: ROOTS[d], env, encoding: 'utf8' },
    );
    if (seeded.status !== 0) throw new Error(seeded.stderr);
    // Each build its own code cache (two builds in one cache prune each other's).
    const e = { LANES_STORE: store, XDG_CACHE_HOME: join(base, `cache-${d}`) };
    const cli = join(dist, 'cli.cjs');
    for (let i = 0; i < 10; i++) run([process.execPath, cli, 'ls'], e); // past the code cache's re-saves
    const label = DISTS.length > 1 ? ` [${d === 0 ? 'new' : 'old'}]` : '';
    return [
      [`ls${label}`, [process.execPath, cli, 'ls'], e],
      [`ls --all${label}`, [process.execPath, cli, 'ls', '--all'], e],
    ];
  });
  const ops = [
    ['node -e 0', [process.execPath, '-e', '0'], {}],
    ['floor: node + store + count', [process.execPath, '-e', FLOOR], { LANES_STORE: join(base, `store-${n}-0.db`) }],
    [
      'ls, 9 live sessions alone',
      [process.execPath, join(DISTS[0], 'cli.cjs'), 'ls'],
      {
        LANES_STORE: small,
        XDG_CACHE_HOME: join(base, 'cache-0'),
      },
    ],
    ...targets.flat(),
  ];
  const times = Object.fromEntries(ops.map(([k]) => [k, []]));
  const peak = Object.fromEntries(ops.map(([k]) => [k, []]));
  const ratios = Object.fromEntries(ops.map(([k]) => [k, []]));
  const cpus = Object.fromEntries(ops.map(([k]) => [k, []]));
  for (let i = 0; i < RUNS; i++) {
    let [floor, floorCpu] = [NaN, NaN];
    for (const [name, args, e] of ops) {
      if (name.startsWith('ls --all') && n >= 10000 && i >= ALL_RUNS) continue;
      const r = run(args, e);
      if (name === 'node -e 0') [floor, floorCpu] = [r.ms, r.cpu];
      times[name].push(r.ms);
      peak[name].push(r.mib);
      ratios[name].push(r.ms / floor); // paired: against the node -e 0 of the same round
      cpus[name].push(r.cpu / floorCpu);
    }
    loads.push(loadavg()[0]);
  }
  const med = (xs) =>
    percentile(
      [...xs].sort((a, b) => a - b),
      50,
    );
  for (const [name] of ops) {
    const xs = [...times[name]].sort((a, b) => a - b);
    rows.push([
      n.toLocaleString('en'),
      name,
      med(xs).toFixed(1),
      `${xs[0].toFixed(0)}-${xs.at(-1).toFixed(0)}`,
      `${(med(xs) / med(times['node -e 0'])).toFixed(2)}x`,
      `${med(ratios[name]).toFixed(2)}x`,
      `${med(cpus[name]).toFixed(2)}x`,
      Math.max(...peak[name]).toFixed(1),
    ]);
  }
}
console.log(
  table(
    ['sessions', 'command', 'p50 ms', 'min-max', 'p50 / node p50', 'paired p50', 'CPU paired p50', 'peak MiB'],
    rows,
  ),
);
console.log(
  `\n9 live, 60% of the rest dead (recorded), 40% ended; 112 dead holding a claim; ${ON_DISK} dead sessions' worktrees on disk (the first dirty); ${RUNS} rounds (ls --all at 20,000: ${ALL_RUNS}), alternating; COLUMNS=160, stdout to /dev/null; load average ${Math.min(...loads).toFixed(2)}-${Math.max(...loads).toFixed(2)}; target: ls <= 1.5x node -e 0 at 1,000 and 20,000`,
);
