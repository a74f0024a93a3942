// bench/start-worktree: `lanes start --worktree` against `git worktree add` on a 5,000-file
// repository, paired and alternating in one run (the machine is shared: only ratios taken in the
// same run mean anything). Each repetition times, in turn:
//   git       git worktree add -q -b B ../B HEAD (spawned directly, as lanes is)
//   floor     node -e 0, then the same git worktree add: the process start no Node CLI avoids
//   lanes     lanes start --worktree --label L --pid PID (each --dist given, in order)
// and the ratios are taken per repetition (lanes / git of the same repetition), then the median.
// Peak memory (max RSS, KiB) comes from GNU time when it is installed.
// Usage: node bench/start-worktree.mjs [--files 5000] [--reps 11] [--dist DIR[,DIR2]]
//   --dist: the builds to time (default this checkout's dist/; a second one, e.g. a baseline, too)
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, scratch, table } from './lib.mjs';

const opt = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const FILES = Number(opt('--files', '5000'));
const REPS = Number(opt('--reps', '11'));
const DISTS = opt('--dist', join(ROOT, 'dist')).split(',');
const base = scratch('lanes-bench-start-');
const env = { ...process.env, LANES_HOME: join(base, 'home'), NO_COLOR: '1' };
delete env.LANES_SESSION;
delete env.LANES_STORE;
// GNU time reports the peak RSS of what it runs; without it the memory column stays empty.
const GNU_TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : null;

const repo = join(base, 'repo');
mkdirSync(join(repo, 'src'), { recursive: true });
const sh = (cmd) => execFileSync('bash', ['-c', cmd], { cwd: repo, env, stdio: ['ignore', 'pipe', 'pipe'] });
sh('git init -q -b main && git config user.name b && git config user.email b@b && git config gc.auto 0');
for (let d = 0; d < FILES / 100; d++) {
  mkdirSync(join(repo, `src/m${d}`), { recursive: true });
  for (let f = 0; f < 100; f++) writeFileSync(join(repo, `src/m${d}/f${f}.ts`), `export const v = ${d * 100 + f};\n`);
}
sh('git add -A && git commit -q -m base');

/** Runs file+args, returns [ms, peak KiB or null]; throws on failure (a failed start is no figure). */
function run(file, args, extraEnv = {}) {
  const argv = GNU_TIME ? [GNU_TIME, ['-f', '%M', file, ...args]] : [file, args];
  const t = performance.now();
  const r = spawnSync(argv[0], argv[1], { cwd: repo, env: { ...env, ...extraEnv }, encoding: 'utf8' });
  const ms = performance.now() - t;
  if (r.status !== 0) throw new Error(`${file} ${args.join(' ')} failed: ${r.stderr}`);
  const kib = GNU_TIME ? Number(r.stderr.trim().split('\n').pop()) : null;
  return [ms, kib];
}
const gitAdd = (name) => run('git', ['worktree', 'add', '-q', '-b', name, `../${name}`, 'HEAD']);

const names = ['git worktree add', 'floor: node -e 0 + git worktree add', ...DISTS.map((d) => `lanes (${d})`)];
const ms = names.map(() => []);
const kib = names.map(() => []);
const ratio = names.map(() => []);
// lanes' code cache is saved again by the first 8 runs of a bundle (core/code-cache.ts, RESAVES):
// those pay for writing it, later ones (every start of a user's) do not. Steady state is timed.
for (let w = 0; w < 9; w++)
  DISTS.forEach((d, i) =>
    run(
      process.execPath,
      [join(d, 'cli.cjs'), 'start', '--worktree', '--label', `w${i}-${w}`, '--pid', `${process.pid}`],
      {
        XDG_CACHE_HOME: join(base, `cache-${i}`),
      },
    ),
  );
// One warm-up of each more (page cache), not counted.
for (let r = -1; r < REPS; r++) {
  const row = [];
  row.push(gitAdd(`plain-${r + 1}`));
  const n = run(process.execPath, ['-e', '0']);
  const g = gitAdd(`floor-${r + 1}`);
  row.push([n[0] + g[0], Math.max(n[1] ?? 0, g[1] ?? 0) || null]);
  DISTS.forEach((d, i) =>
    row.push(
      run(
        process.execPath,
        [join(d, 'cli.cjs'), 'start', '--worktree', '--label', `b${i}-${r + 1}`, '--pid', `${process.pid}`],
        {
          XDG_CACHE_HOME: join(base, `cache-${i}`),
        },
      ),
    ),
  );
  if (r < 0) continue;
  row.forEach(([t, k], i) => {
    ms[i].push(t);
    kib[i].push(k);
    ratio[i].push(t / row[0][0]);
  });
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rows = names.map((n, i) => [
  n,
  median(ms[i]).toFixed(0),
  median(ratio[i]).toFixed(2) + 'x',
  GNU_TIME ? (Math.max(...kib[i]) / 1024).toFixed(0) : '-',
]);
console.log(table(['command', 'median ms', 'median paired ratio to git', 'peak MiB'], rows));
console.log(
  `\n${FILES} files; ${REPS} paired repetitions (after one warm-up); load ${readFileSync('/proc/loadavg', 'utf8').trim()}; target: lanes <= 1.2x git worktree add`,
);
