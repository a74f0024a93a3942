// bench/ls: `lanes ls` (the default view, --all and --json) against the number of claims, each
// against `node -e 0` measured in the same run, alternating, with its peak memory (/usr/bin/time).
// Stores of 10 sessions (9 live, 1 dead) holding 100, 100,000 and 1,000,000 path claims, filled
// through the store API (bench/scale-seed.ts). --json prints every claim (about 250 bytes each):
// its time follows the claims, its memory should not.
// Usage: node bench/ls.mjs [--runs 9] [--claims 100,100000,1000000] [--dist DIR]
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, percentile, scratch, table } from './lib.mjs';

const opt = (name, dflt) => (process.argv.indexOf(name) > 0 ? process.argv[process.argv.indexOf(name) + 1] : dflt);
const RUNS = Number(opt('--runs', 9));
const CLAIMS = opt('--claims', '100,100000,1000000').split(',').map(Number);
const CLI = join(opt('--dist', join(ROOT, 'dist')), 'cli.cjs');
const base = scratch('lanes-bench-ls-');
const env = {
  ...process.env,
  NO_COLOR: '1',
  COLUMNS: '160',
  LANES_GC_AFTER_MS: 'off',
  XDG_CACHE_HOME: join(base, 'cache'),
};
for (const k of ['LANES_SESSION', 'LANES_STORE', 'LANES_HOME']) delete env[k];
const repo = join(base, 'repo');
mkdirSync(repo);
execFileSync('bash', ['-c', 'git init -q -b main && git commit -q --allow-empty -m i'], {
  cwd: repo,
  env: { ...env, GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@b' },
});
// The live sessions' owner: a process that outlives the runs.
const owner = spawn('sleep', ['100000'], { stdio: 'ignore' });
owner.unref();
process.on('exit', () => owner.kill());

/** Runs a command with stdout to /dev/null; its wall time (ms) and peak resident memory (MiB). */
function run(args, storeEnv) {
  const t = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', 'MAXRSS %M', ...args], {
    cwd: repo,
    env: { ...env, ...storeEnv },
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
  });
  const ms = performance.now() - t;
  if (r.status !== 0) throw new Error(`${args.join(' ')}: exit ${r.status}: ${r.stderr}`);
  return { ms, mib: Number(/MAXRSS (\d+)/.exec(r.stderr)?.[1] ?? NaN) / 1024 };
}

const OPS = { ls: ['ls'], 'ls --all': ['ls', '--all'], 'ls --json': ['ls', '--json'] };
// NODE_EXTRA_CA_CERTS (set on some machines, this one included) makes every Node parse the CA
// bundle at start-up, lanes and the floor alike (~40 ms here): both ratios are shown.
const worlds = [['as given', {}]];
if (process.env.NODE_EXTRA_CA_CERTS) worlds.push(['no NODE_EXTRA_CA_CERTS', { NODE_EXTRA_CA_CERTS: undefined }]); // undefined: left out
const rows = [];
for (const claims of CLAIMS) {
  const store = join(base, `store-${claims}.db`);
  const commonDir = join(repo, '.git');
  const spec = { live: 9, dead: 1, ended: 0, claims, repo: commonDir, worktree: repo, ownerPid: owner.pid, dirs: 25 };
  const seeded = spawnSync(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'bench', 'scale-seed.ts'), store, JSON.stringify(spec)],
    { cwd: ROOT, env, encoding: 'utf8' },
  );
  if (seeded.status !== 0) throw new Error(seeded.stderr);
  const storeEnv = { LANES_STORE: store };
  for (let i = 0; i < 10; i++) run([process.execPath, CLI, 'ls'], storeEnv); // past the code cache's re-saves
  for (const [label, extra] of worlds) {
    const e = { ...storeEnv, ...extra };
    const times = { node: [], ...Object.fromEntries(Object.keys(OPS).map((k) => [k, []])) };
    const peak = { node: [], ...Object.fromEntries(Object.keys(OPS).map((k) => [k, []])) };
    // Alternating: node -e 0, then each view, RUNS times (a 1,000,000-claim --json: fewer).
    for (let i = 0; i < RUNS; i++) {
      for (const [name, args] of [['node', null], ...Object.entries(OPS)]) {
        if (name === 'ls --json' && claims >= 1_000_000 && i >= 3) continue;
        const r = run(args ? [process.execPath, CLI, ...args] : [process.execPath, '-e', '0'], e);
        times[name].push(r.ms);
        peak[name].push(r.mib);
      }
    }
    const med = (xs) =>
      percentile(
        [...xs].sort((a, b) => a - b),
        50,
      );
    const floor = med(times.node);
    for (const name of ['node', ...Object.keys(OPS)]) {
      const xs = [...times[name]].sort((a, b) => a - b);
      rows.push([
        `${claims.toLocaleString('en')} claims`,
        label,
        name === 'node' ? 'node -e 0' : name,
        med(xs).toFixed(1),
        `${xs[0].toFixed(0)}-${xs.at(-1).toFixed(0)}`,
        `${(med(xs) / floor).toFixed(2)}x`,
        Math.max(...peak[name]).toFixed(1),
      ]);
    }
  }
}
console.log(table(['store', 'environment', 'command', 'p50 ms', 'min-max', '/ node -e 0', 'peak MiB'], rows));
console.log(
  `\n10 sessions (9 live, 1 dead); ${RUNS} runs each, alternating (ls --json at 1,000,000 claims: 3); stdout to /dev/null; COLUMNS=160; targets at 100,000 claims: ls <= 2x node -e 0, memory bounded (flat from 100,000 to 1,000,000)`,
);
