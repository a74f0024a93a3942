// bench/runtime: (1) `lanes exec -- true` versus a bare `node -e 0`, alternating, in the same run;
// (2) .worktreeinclude of a 20,000-file node_modules versus `cp -r` and `cp -r --reflink=auto`.
// Usage: node bench/runtime.mjs [--runs 30] [--files 20000]
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, percentile, scratch, table } from './lib.mjs';

const opt = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return Number(i > 0 ? process.argv[i + 1] : dflt);
};
const RUNS = opt('--runs', 30);
const FILES = opt('--files', 20000);
const CLI = join(ROOT, 'dist', 'cli.cjs');
const { copyWorktreeIncludes } = await import(join(ROOT, 'dist', 'index.js'));
const base = scratch('lanes-bench-rt-');
const env = { ...process.env, LANES_HOME: join(base, 'home') };
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
const session = spawnSync(process.execPath, [CLI, 'start', '--pid', String(process.pid)], {
  cwd: repo,
  env,
  encoding: 'utf8',
}).stdout.trim();
const runEnv = { ...env, LANES_SESSION: session };
const time = (file, args) => {
  const t = performance.now();
  const r = spawnSync(file, args, { cwd: repo, env: runEnv });
  if (r.status !== 0) throw new Error(`${args.join(' ')}: ${r.stderr}`);
  return performance.now() - t;
};
time(process.execPath, [CLI, 'exec', '--', 'true']); // first lease of the ports happens here
const bare = [];
const exec = [];
for (let i = 0; i < RUNS; i++) {
  bare.push(time(process.execPath, ['-e', '0']));
  exec.push(time(process.execPath, [CLI, 'exec', '--', 'true']));
}
bare.sort((a, b) => a - b);
exec.sort((a, b) => a - b);
const rows = [
  ['node -e 0', percentile(bare, 50).toFixed(1), percentile(bare, 90).toFixed(1), '1.00x'],
  [
    'lanes exec -- true',
    percentile(exec, 50).toFixed(1),
    percentile(exec, 90).toFixed(1),
    `${(percentile(exec, 50) / percentile(bare, 50)).toFixed(2)}x`,
  ],
];
console.log(table(['command', 'p50 ms', 'p90 ms', 'vs node -e 0 (p50)'], rows));
console.log(`${RUNS} runs each, alternating; target <= 1.3x\n`);

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
