// bench/runtime: (1) `lanes exec -- true` versus a bare `node -e 0`, alternating, in the same run, ROUNDS
// rounds of RUNS each; (2) .worktreeinclude of a 20,000-file node_modules versus `cp -r` and `cp -r --reflink=auto`.
// Usage: node bench/runtime.mjs [--runs 30] [--rounds 5] [--files 20000] [--dist DIR] [--exec-only]
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, percentile, scratch, table } from './lib.mjs';

const opt = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const RUNS = Number(opt('--runs', 30));
const ROUNDS = Number(opt('--rounds', 5));
const FILES = Number(opt('--files', 20000));
// --dist: another build's dist/ (a baseline) for the exec part.
const DIST = opt('--dist', join(ROOT, 'dist'));
const CLI = join(DIST, 'cli.cjs');
const { copyWorktreeIncludes } = await import(join(ROOT, 'dist', 'index.js'));
const base = scratch('lanes-bench-rt-');
// A code cache of its own: another checkout's build of the same size, saving into the user's
// cache, prunes this one's (core/code-cache.ts keeps one build per bundle and Node).
const env = { ...process.env, LANES_HOME: join(base, 'home'), XDG_CACHE_HOME: join(base, 'cache') };
delete env.LANES_SESSION;
delete env.LANES_STORE;

// 1. exec overhead, with a repository that configures two ports and two templates.
const repo = join(base, 'repo');
mkdirSync(repo);
const sh = (cmd, cwd) => execFileSync('bash', ['-c', cmd], { cwd, env }).toString();
sh('git init -q -b main && git config user.name b && git config user.email b@b', repo);
writeFileSync(
  join(repo, 'lanes.toml'),
  '[ports]\nnames = ["web", "api"]\n\n[env]\nDATABASE_NAME = "{repo}_{slug}"\nstrip = ["*_API_KEY"]\n',
);
sh('git add -A && git commit -q -m c', repo);
// Its [env] runs only once allowed (issue 46): the user's one `lanes allow`.
execFileSync(process.execPath, [CLI, 'allow'], { cwd: repo, env });
const session = spawnSync(process.execPath, [CLI, 'start', '--pid', String(process.pid)], {
  cwd: repo,
  env,
  encoding: 'utf8',
}).stdout.trim();
const runEnv = { ...env, LANES_SESSION: session };
const time = (file, args, e = runEnv) => {
  const t = performance.now();
  const r = spawnSync(file, args, { cwd: repo, env: e });
  if (r.status !== 0) throw new Error(`${args.join(' ')}: ${r.stderr}`);
  return performance.now() - t;
};
// The first lease of the ports happens in the first call, and the first 8 calls after a build save
// the code cache again (core/code-cache.ts, RESAVES): the figures are of every later call.
for (let i = 0; i < 10; i++) time(process.execPath, [CLI, 'exec', '--', 'true']);
// NODE_EXTRA_CA_CERTS (set on some machines, this one included) makes every Node parse the CA
// bundle at start-up, lanes and the floor alike (~40 ms here): both ratios are shown.
const worlds = [['as given', runEnv]];
if (process.env.NODE_EXTRA_CA_CERTS) {
  const bare = { ...runEnv };
  delete bare.NODE_EXTRA_CA_CERTS;
  worlds.push(['no NODE_EXTRA_CA_CERTS', bare]);
}
const rows = [];
const verdicts = worlds.map(() => 0);
for (let round = 1; round <= ROUNDS; round++) {
  worlds.forEach(([label, e], w) => {
    const bare = [];
    const exec = [];
    const pairs = [];
    for (let i = 0; i < RUNS; i++) {
      bare.push(time(process.execPath, ['-e', '0'], e));
      exec.push(time(process.execPath, [CLI, 'exec', '--', 'true'], e));
      pairs.push(exec.at(-1) / bare.at(-1));
    }
    bare.sort((a, b) => a - b);
    exec.sort((a, b) => a - b);
    pairs.sort((a, b) => a - b);
    const ratio = percentile(exec, 50) / percentile(bare, 50);
    if (ratio <= 1.3) verdicts[w]++;
    rows.push([
      String(round),
      label,
      percentile(bare, 50).toFixed(1),
      percentile(exec, 50).toFixed(1),
      `${bare[0].toFixed(1)}-${bare.at(-1).toFixed(1)}`,
      `${exec[0].toFixed(1)}-${exec.at(-1).toFixed(1)}`,
      `${ratio.toFixed(2)}x`,
      `${percentile(pairs, 50).toFixed(2)}x`,
    ]);
  });
}
console.log(
  table(
    ['round', 'environment', 'node -e 0 p50', 'exec -- true p50', 'node min-max', 'exec min-max', 'ratio', 'paired'],
    rows,
  ),
);
console.log(
  `${RUNS} runs each per round, alternating; ratio: of the p50s (paired: the median of each exec run over the node run before it); target <= 1.3x in every round: ${worlds
    .map(([label], w) => `${label} ${verdicts[w]} of ${ROUNDS}`)
    .join(', ')}\n`,
);
if (process.argv.includes('--exec-only')) process.exit(0);

// 2. .worktreeinclude copy of a node_modules of FILES files.
const src = join(base, 'main');
mkdirSync(src);
sh('git init -q -b main', src);
writeFileSync(join(src, '.gitignore'), 'node_modules/\n');
writeFileSync(join(src, '.worktreeinclude'), 'node_modules/\n');
for (let p = 0; p < FILES / 20; p++) {
  const d = join(src, 'node_modules', `pkg-${p}`, 'lib');
  mkdirSync(d, { recursive: true });
  for (let f = 0; f < 20; f++)
    writeFileSync(join(d, `f${f}.js`), `module.exports = ${p * 20 + f}; // ${'x'.repeat(200)}\n`);
}
const copyRows = [];
const median3 = (fn) => {
  const xs = [];
  for (let i = 0; i < 3; i++) xs.push(fn(i));
  return xs.sort((a, b) => a - b)[1];
};
const cp = (flags) =>
  median3((i) => {
    const dst = join(base, `cp-${flags.join('')}-${i}`);
    mkdirSync(dst);
    const t = performance.now();
    execFileSync('cp', [...flags, join(src, 'node_modules'), dst]);
    const ms = performance.now() - t;
    rmSync(dst, { recursive: true, force: true });
    return ms;
  });
const cpPlain = cp(['-r']);
const cpReflink = cp(['-r', '--reflink=auto']);
let report;
const lanesMs = [];
for (let i = 0; i < 3; i++) {
  const dst = join(base, `lanes-${i}`);
  mkdirSync(dst);
  const t = performance.now();
  report = await copyWorktreeIncludes(src, dst);
  lanesMs.push(performance.now() - t);
  rmSync(dst, { recursive: true, force: true });
}
const lanesMed = lanesMs.sort((a, b) => a - b)[1];
copyRows.push(['cp -r', cpPlain.toFixed(0), '1.00x']);
copyRows.push(['cp -r --reflink=auto', cpReflink.toFixed(0), `${(cpReflink / cpPlain).toFixed(2)}x`]);
copyRows.push(['lanes .worktreeinclude', lanesMed.toFixed(0), `${(lanesMed / cpPlain).toFixed(2)}x`]);
console.log(table(['copy of node_modules', 'median ms', 'vs cp -r'], copyRows));
console.log(
  `${report.files} files, ${(report.bytes / 1048576).toFixed(1)} MiB (median of 3; includes listing the ignored files with git)`,
);
rmSync(base, { recursive: true, force: true });
