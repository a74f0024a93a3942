// bench/git: lanes' git commands against the floor of the same raw git plumbing in a shell loop,
// in the same run, on a generated repository of 5,000 files.
//   sweep      with 16 and 32 worktrees, 10 dirty files each: lanes sweep vs a loop of
//              status + private-index snapshot (cp index, add -A, write-tree, commit-tree, update-ref)
//   conflicts  same worktrees: lanes conflicts vs a loop of status + private-index capture +
//              merge-base + diff-tree per worktree (+ merge-tree per overlapping pair)
//   start      lanes start --worktree vs git worktree add (5,000-file checkout)
// Usage: node bench/git.mjs [--files 5000] [--worktrees 16,32] [--reps 3] [--sweep-only] [--dist DIR[,DIR2]]
//   --dist: the builds to time (default this checkout's dist/); a second one (a baseline) is timed
//   in the same repetitions, after the first.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONFLICTS_FLOOR, ROOT, scratch, table } from './lib.mjs';

const opt = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const FILES = Number(opt('--files', '5000'));
const COUNTS = opt('--worktrees', '16,32').split(',').map(Number);
const REPS = Number(opt('--reps', '3'));
const DISTS = opt('--dist', join(ROOT, 'dist')).split(',');
const SWEEP_ONLY = process.argv.includes('--sweep-only');
const base = scratch('lanes-bench-git-');
const env = { ...process.env, LANES_HOME: join(base, 'home'), NO_COLOR: '1' };
delete env.LANES_SESSION;
delete env.LANES_STORE;

const sh = (cmd, cwd) => execFileSync('bash', ['-c', cmd], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] }).toString();
// Each build keeps its code cache apart: two builds of one bundle in one cache prune each other's.
const lanes = (args, cwd, d = 0) =>
  spawnSync(process.execPath, [join(DISTS[d], 'cli.cjs'), ...args], {
    cwd,
    env: { ...env, XDG_CACHE_HOME: join(base, `cache-${d}`) },
    encoding: 'utf8',
  });
function time(fn) {
  const t = performance.now();
  fn();
  return performance.now() - t;
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function makeRepo(dir) {
  mkdirSync(dir, { recursive: true });
  sh(
    'git init -q -b main && git config user.name bench && git config user.email b@b && git config commit.gpgsign false && git config gc.auto 0',
    dir,
  );
  for (let d = 0; d < FILES / 100; d++) {
    mkdirSync(join(dir, `src/m${d}`), { recursive: true });
    for (let f = 0; f < 100; f++)
      writeFileSync(join(dir, `src/m${d}/f${f}.ts`), `export const v${d}_${f} = ${d * 100 + f};\n`);
  }
  sh('git add -A && git commit -q -m base', dir);
}

const SWEEP_FLOOR = `
for wt in $(git worktree list --porcelain | sed -n 's/^worktree //p'); do
  if [ -n "$(git -C "$wt" status --porcelain --untracked-files=all)" ]; then
    gd=$(git -C "$wt" rev-parse --absolute-git-dir); idx="$gd/floor.index"; cp "$gd/index" "$idx"
    GIT_INDEX_FILE="$idx" git -C "$wt" add -A; t=$(GIT_INDEX_FILE="$idx" git -C "$wt" write-tree)
    c=$(echo snap | git -C "$wt" commit-tree "$t" -p HEAD); n=$((n+1)); git update-ref "refs/floor/$n" "$c"; rm -f "$idx"
  fi
done`;
// The same git work, GIT_PARALLEL (4) worktrees at a time, as lanes sweep runs them since issue 28.
const SWEEP_FLOOR_PAR = `
git worktree list --porcelain | sed -n 's/^worktree //p' | awk '{print NR" "$0}' | xargs -P 4 -n 2 sh -c '
  i=$0; wt=$1
  if [ -n "$(git -C "$wt" status --porcelain --untracked-files=all)" ]; then
    gd=$(git -C "$wt" rev-parse --absolute-git-dir); idx="$gd/floor.index"; cp "$gd/index" "$idx"
    GIT_INDEX_FILE="$idx" git -C "$wt" add -A; t=$(GIT_INDEX_FILE="$idx" git -C "$wt" write-tree)
    c=$(echo snap | git -C "$wt" commit-tree "$t" -p HEAD); git -C "$wt" update-ref "refs/floor/p$R-$i" "$c"; rm -f "$idx"
  fi'`;
const rows = [];
for (const count of COUNTS) {
  const repo = join(base, `repo-${count}`);
  makeRepo(repo);
  for (let i = 0; i < count; i++) {
    const r = lanes(['start', '--worktree', '--ticket', `T-${i}`, '--pid', String(process.pid)], repo);
    if (r.status !== 0) throw new Error(r.stderr);
  }
  const wts = sh(`git worktree list --porcelain | sed -n 's/^worktree //p'`, repo).trim().split('\n').slice(1);
  // 10 dirty files per worktree, spread over the tree (a few overlap between worktrees).
  wts.forEach((wt, i) => {
    for (let k = 0; k < 10; k++) {
      const d = (i * 7 + k * 13) % (FILES / 100);
      writeFileSync(join(wt, `src/m${d}/f${(i + k) % 100}.ts`), `// changed by worktree ${i}\n`);
    }
  });
  const sweepLanes = DISTS.map(() => []);
  const sweepFloor = [];
  const sweepFloorPar = [];
  const confLanes = [];
  const confFloor = [];
  for (let r = 0; r < REPS; r++) {
    // Fresh snapshots each repetition for both: touch one file per worktree so each has new work.
    wts.forEach((wt, i) => writeFileSync(join(wt, `rep-${r}.txt`), `${r} ${i}\n`));
    sweepFloor.push(time(() => sh(`n=${r * 1000}; ${SWEEP_FLOOR}`, repo)));
    wts.forEach((wt, i) => writeFileSync(join(wt, `rep-${r}-p.txt`), `${r} ${i}\n`));
    sweepFloorPar.push(time(() => sh(`export R=${r}; ${SWEEP_FLOOR_PAR}`, repo)));
    DISTS.forEach((_, d) => {
      wts.forEach((wt, i) => writeFileSync(join(wt, `rep-${r}-b${d}.txt`), `${r} ${i}\n`));
      sweepLanes[d].push(time(() => lanes(['sweep', '--json'], repo, d)));
    });
    if (SWEEP_ONLY) continue;
    confFloor.push(time(() => sh(`TMPF=${join(base, 'cf')}; ${CONFLICTS_FLOOR}`, repo)));
    confLanes.push(time(() => lanes(['conflicts', '--json'], repo)));
  }
  const spread = (xs) => `${Math.min(...xs).toFixed(0)}-${Math.max(...xs).toFixed(0)}`;
  const label = (d) => (DISTS.length > 1 ? ` [${d === 0 ? 'this build' : DISTS[d]}]` : '');
  DISTS.forEach((_, d) => {
    rows.push([
      `sweep, ${count} worktrees${label(d)}`,
      median(sweepFloor).toFixed(0),
      median(sweepLanes[d]).toFixed(0),
      (median(sweepLanes[d]) / median(sweepFloor)).toFixed(2) + 'x',
    ]);
    rows.push([
      `sweep, ${count} worktrees (floor 4 at a time)${label(d)}`,
      `${median(sweepFloorPar).toFixed(0)} (${spread(sweepFloorPar)})`,
      `${median(sweepLanes[d]).toFixed(0)} (${spread(sweepLanes[d])})`,
      (median(sweepLanes[d]) / median(sweepFloorPar)).toFixed(2) + 'x',
    ]);
  });
  if (SWEEP_ONLY) continue;
  rows.push([
    `conflicts, ${count} worktrees`,
    median(confFloor).toFixed(0),
    median(confLanes).toFixed(0),
    (median(confLanes) / median(confFloor)).toFixed(2) + 'x',
  ]);
}

// lanes start --worktree vs git worktree add, same repository, alternating.
if (!SWEEP_ONLY) {
  const repo = join(base, `repo-${COUNTS[0]}`);
  const add = [];
  const start = [];
  for (let r = 0; r < REPS + 2; r++) {
    add.push(time(() => sh(`git worktree add -q -b plain-${r} ../plain-${r} HEAD`, repo)));
    start.push(time(() => lanes(['start', '--worktree', '--label', `bench ${r}`, '--pid', String(process.pid)], repo)));
  }
  rows.push([
    'start --worktree',
    median(add).toFixed(0),
    median(start).toFixed(0),
    (median(start) / median(add)).toFixed(2) + 'x',
  ]);
}
console.log(table(['operation', 'floor ms (raw git)', 'lanes ms', 'lanes/floor'], rows));
console.log(
  `\n${FILES} files; median of ${REPS} runs (start: ${REPS + 2}); targets: sweep and conflicts <= 1.5x, start --worktree <= 1.2x`,
);
rmSync(base, { recursive: true, force: true });
