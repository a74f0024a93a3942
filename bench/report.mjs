// bench/report: `lanes report` on a store with a fleet's history (issue 26, item 1: target <= 1 s):
// 1,000 sessions (20 live, 30 dead in a real worktree, 950 ended) and 100,000 journal entries of
// the last 12 hours, against a bare `node -e 0` in the same run. The text report and --json.
// Usage: node bench/report.mjs [--runs 10] [--sessions 1000] [--journal 100000]
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, percentile, scratch, table } from './lib.mjs';

const opt = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const RUNS = opt('--runs', 10);
const SESSIONS = opt('--sessions', 1000);
const JOURNAL = opt('--journal', 100_000);
const CLI = join(ROOT, 'dist', 'cli.cjs');
const base = scratch('lanes-bench-report-');
const repo = join(base, 'repo');
mkdirSync(repo);
execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: repo });
writeFileSync(join(repo, 'a.ts'), 'a\n');
const store = join(base, 'lanes.db');
const env = {
  ...process.env,
  LANES_HOME: join(base, 'home'),
  LANES_STORE: store,
  LANES_GC_AFTER_MS: 'off',
  NO_COLOR: '1',
};
delete env.LANES_SESSION;
const live = 20;
const dead = 30;
const t0 = performance.now();
const seeded = execFileSync(
  process.execPath,
  [
    '--import',
    'tsx',
    join(ROOT, 'bench', 'scale-seed.ts'),
    store,
    JSON.stringify({
      live,
      dead,
      ended: SESSIONS - live - dead,
      claims: 2000,
      repo: join(repo, '.git'),
      worktree: repo,
      ownerPid: process.pid,
      dirs: 20,
      journal: JOURNAL,
    }),
  ],
  { cwd: ROOT, env, encoding: 'utf8' },
);
console.log(`seeded ${seeded.trim()} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

const timed = (args) => {
  const t = performance.now();
  const r = spawnSync(process.execPath, args, { cwd: repo, env, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`${args.join(' ')}: ${r.stderr}`);
  return performance.now() - t;
};
if (process.env.LANES_BENCH_PROFILE) {
  spawnSync(process.execPath, ['--cpu-prof', '--cpu-prof-dir', process.env.LANES_BENCH_PROFILE, CLI, 'report'], {
    cwd: repo,
    env,
    stdio: 'ignore',
  });
}
const rows = [];
for (const [what, args] of [
  ['lanes report', [CLI, 'report']],
  ['lanes report --json', [CLI, 'report', '--json']],
]) {
  const a = [];
  const b = [];
  timed(args); // the code cache and the page cache
  for (let i = 0; i < RUNS; i++) {
    a.push(timed(args));
    b.push(timed(['-e', '0']));
  }
  a.sort((x, y) => x - y);
  b.sort((x, y) => x - y);
  const p50 = percentile(a, 50);
  rows.push([
    what,
    p50.toFixed(0),
    percentile(a, 100).toFixed(0),
    (p50 / percentile(b, 50)).toFixed(1),
    p50 <= 1000 ? 'met' : 'NOT met',
  ]);
}
console.log(
  `\nlanes report, ${SESSIONS} sessions (${live} live, ${dead} dead), ${JOURNAL} journal entries (${RUNS} runs)\n`,
);
console.log(table(['command', 'p50 ms', 'max ms', 'vs node -e 0', 'target <= 1 s'], rows));
