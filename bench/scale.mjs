// bench/scale: does the hot path stay flat as the store grows? Stores of 10 / 1,000 / 5,000
// sessions (mixes of live, dead and ended) and 100 / 10,000 claims, filled through the store API
// (bench/scale-seed.ts), on a 5,000-file repository (--files 5000,50000 adds a 50,000-file one),
// on SQLite and, with a server (--pg URL, default $LANES_TEST_PG_URL), PostgreSQL. Each operation's
// median against `node -e 0` and against the smallest store, measured interleaved in the same run,
// and its peak memory (/usr/bin/time). Then `lanes conflicts` where every pair of N worktrees
// shares a file, against the raw-git floor of bench/git.mjs (--conflicts 8,16; --big: 8,16,32,64).
// Usage: node bench/scale.mjs [--runs 7] [--files 5000] [--conflicts 8,16] [--big] [--pg URL] [--conflicts-only]
import { execFileSync, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONFLICTS_FLOOR, ROOT, percentile, scratch, table } from './lib.mjs';

const argv = process.argv;
const opt = (name, dflt) => (argv.indexOf(name) > 0 ? argv[argv.indexOf(name) + 1] : dflt);
const BIG = argv.includes('--big');
const RUNS = Number(opt('--runs', 7));
const FILES = opt('--files', BIG ? '5000,50000' : '5000')
  .split(',')
  .map(Number);
const CONFLICTS = opt('--conflicts', BIG ? '8,16,32,64' : '8,16')
  .split(',')
  .filter(Boolean)
  .map(Number);
const PG = opt('--pg', process.env.LANES_TEST_PG_URL ?? '');
const STORES_TOO = !argv.includes('--conflicts-only');
const CLI = join(ROOT, 'dist', 'cli.cjs');
const DIRS = 25;
const base = scratch('lanes-bench-scale-');
const env = { ...process.env, NO_COLOR: '1', LANES_GC_AFTER_MS: 'off' };
for (const k of ['LANES_SESSION', 'LANES_STORE', 'LANES_HOME']) delete env[k];
const sh = (cmd, cwd) => execFileSync('bash', ['-c', cmd], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] }).toString();

const STORES = [
  { name: '10 sessions, 100 claims', live: 9, dead: 1, ended: 0, claims: 100 },
  { name: '1,000 sessions (491 dead, 500 ended), 100 claims', live: 9, dead: 491, ended: 500, claims: 100 },
  { name: '5,000 sessions (4,991 ended), 100 claims', live: 9, dead: 0, ended: 4991, claims: 100 },
  { name: '10 sessions, 10,000 claims', live: 9, dead: 1, ended: 0, claims: 10000 },
  { name: '5,000 sessions (4,991 dead), 10,000 claims', live: 9, dead: 4991, ended: 0, claims: 10000 },
];
const uuid = (n) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const ME = uuid(1);

function makeRepo(files, name = `repo-${files}`) {
  const dir = join(base, name);
  mkdirSync(dir);
  sh('git init -q -b main && git config user.name b && git config user.email b@b && git config gc.auto 0', dir);
  for (let d = 0; d < DIRS; d++) {
    mkdirSync(join(dir, `pkg${d}`));
    for (let f = 0; f < files / DIRS; f++) writeFileSync(join(dir, `pkg${d}`, `f${f}.ts`), `export const v = ${f};\n`);
  }
  sh('git add -A && git commit -q -m files', dir);
  return dir;
}

function pgUrl(schema) {
  const u = new URL(PG);
  u.searchParams.set('schema', schema);
  return u.toString();
}

function seed(location, spec, repo) {
  const commonDir = sh('git rev-parse --path-format=absolute --git-common-dir', repo).trim();
  const r = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      join(ROOT, 'bench', 'scale-seed.ts'),
      location,
      JSON.stringify({ ...spec, repo: commonDir, worktree: repo, ownerPid: process.pid, dirs: DIRS }),
    ],
    { cwd: ROOT, env, encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`seeding ${spec.name}: ${r.stderr}`);
}

const payload = (repo, event, extra) =>
  JSON.stringify({ session_id: ME, transcript_path: '/tmp/t.jsonl', cwd: repo, hook_event_name: event, ...extra });
const edit = (repo, file) =>
  payload(repo, 'PreToolUse', {
    tool_name: 'Edit',
    tool_input: { file_path: join(repo, file), old_string: 'a', new_string: 'b' },
  });
let fresh = 0;
/** The operations, each [args, stdin, extra env]. */
const OPS = (repo) => ({
  'hook pre-tool-use edit (allowed)': () => [['hook', 'claude-code', 'pre-tool-use'], edit(repo, 'pkg24/free.ts')],
  'hook pre-tool-use edit (denied)': () => [['hook', 'claude-code', 'pre-tool-use'], edit(repo, 'pkg0/f0.ts')],
  'hook pre-tool-use git commit': () => [
    ['hook', 'claude-code', 'pre-tool-use'],
    payload(repo, 'PreToolUse', { tool_name: 'Bash', tool_input: { command: 'git commit -m x' } }),
  ],
  'hook session-start': () => [
    ['hook', 'claude-code', 'session-start'],
    payload(repo, 'SessionStart', { source: 'resume' }),
  ],
  claim: () => [['claim', `path:new/f${fresh++}.ts`], '', { LANES_SESSION: `claude-code:${ME}` }],
  check: () => [['check', 'path:pkg0/f0.ts'], ''],
  'exec -- true': () => [['exec', '--', 'true'], '', { LANES_SESSION: `claude-code:${ME}` }],
  start: () => [['start', '--pid', String(process.pid)], ''],
  ls: () => [['ls'], ''],
  'ls --all': () => [['ls', '--all'], ''],
});
const OK = new Set([0, 3]); // check exits 3: another live session holds it

function lanes(storeEnv, [args, input, extra = {}], repo, withTime = false) {
  const cmd = withTime
    ? ['/usr/bin/time', ['-f', 'MAXRSS %M', process.execPath, CLI, ...args]]
    : [process.execPath, [CLI, ...args]];
  const r = spawnSync(cmd[0], cmd[1], { cwd: repo, env: { ...env, ...storeEnv, ...extra }, input, encoding: 'utf8' });
  if (!OK.has(r.status)) throw new Error(`lanes ${args.join(' ')}: exit ${r.status}: ${r.stderr}`);
  if (/failed open/.test(r.stderr)) throw new Error(`lanes ${args.join(' ')} failed open: ${r.stderr}`);
  return r;
}
const maxRss = (r) => Number(/MAXRSS (\d+)/.exec(r.stderr)?.[1] ?? NaN) / 1024;

const backends = [['SQLite', (i) => ({ LANES_STORE: join(base, `store-${i}.db`) })]];
if (PG) backends.push(['PostgreSQL', (i) => ({ LANES_STORE: pgUrl(`bench_scale_${process.pid}_${i}`) })]);
const pgSchemas = [];
const results = [];
for (const files of STORES_TOO ? FILES : []) {
  const repo = makeRepo(files);
  const ops = OPS(repo);
  for (const [backend, where] of backends) {
    const worlds = STORES.map((spec, i) => {
      const storeEnv = where(`${files}_${i}`);
      if (backend === 'PostgreSQL') pgSchemas.push(new URL(storeEnv.LANES_STORE).searchParams.get('schema'));
      seed(storeEnv.LANES_STORE, spec, repo);
      // The first hook call after the pile-up judges every open session once and records the dead.
      const t = performance.now();
      lanes(storeEnv, ops['hook pre-tool-use edit (allowed)'](), repo);
      return { spec, storeEnv, first: performance.now() - t };
    });
    // Sanity: the answers are the same on every store.
    for (const w of worlds) {
      if (!/"deny"/.test(lanes(w.storeEnv, ops['hook pre-tool-use edit (denied)'](), repo).stdout))
        throw new Error(`${w.spec.name}: the denied case was not denied`);
      if (lanes(w.storeEnv, ops['hook pre-tool-use edit (allowed)'](), repo).stdout !== '')
        throw new Error(`${w.spec.name}: the allowed case printed something`);
    }
    const times = new Map();
    const bare = [];
    const rec = (key, ms) => (times.get(key) ?? times.set(key, []).get(key)).push(ms);
    for (let r = 0; r < RUNS; r++) {
      for (const w of worlds) {
        let t = performance.now();
        spawnSync(process.execPath, ['-e', '0']);
        bare.push(performance.now() - t);
        for (const [op, make] of Object.entries(ops)) {
          t = performance.now();
          lanes(w.storeEnv, make(), repo);
          rec(`${w.spec.name}\0${op}`, performance.now() - t);
        }
      }
    }
    const bareRss = maxRss(
      spawnSync('/usr/bin/time', ['-f', 'MAXRSS %M', process.execPath, '-e', '0'], { encoding: 'utf8' }),
    );
    const bareP50 = percentile(
      bare.sort((a, b) => a - b),
      50,
    );
    const p50 = (key) =>
      percentile(
        (times.get(key) ?? []).sort((a, b) => a - b),
        50,
      );
    for (const [op, make] of Object.entries(ops)) {
      const small = p50(`${worlds[0].spec.name}\0${op}`);
      const smallRss = maxRss(lanes(worlds[0].storeEnv, make(), repo, true));
      for (const w of worlds) {
        const m = p50(`${w.spec.name}\0${op}`);
        const rss = w === worlds[0] ? smallRss : maxRss(lanes(w.storeEnv, make(), repo, true));
        results.push([
          backend,
          `${files}`,
          op,
          w.spec.name,
          m.toFixed(1),
          `${(m / bareP50).toFixed(2)}x`,
          `${(m / small).toFixed(2)}x`,
          rss.toFixed(1),
          `${rss - smallRss >= 0 ? '+' : ''}${(rss - smallRss).toFixed(1)}`,
        ]);
      }
    }
    for (const w of worlds)
      results.push([
        backend,
        `${files}`,
        'first hook call after seeding',
        w.spec.name,
        w.first.toFixed(1),
        `${(w.first / bareP50).toFixed(2)}x`,
        '',
        '',
        '',
      ]);
    results.push([backend, `${files}`, 'node -e 0', '', bareP50.toFixed(1), '1.00x', '', bareRss.toFixed(1), '']);
  }
}
if (STORES_TOO) {
  console.log(
    table(
      ['store', 'files', 'operation', 'world', 'p50 ms', 'vs node -e 0', 'vs smallest', 'peak MiB', 'vs smallest MiB'],
      results,
    ),
  );
  console.log(
    `\n${RUNS} runs each, interleaved; targets: hook pre-tool-use <= 1.3x node -e 0 with 4,991 dead and 10,000 claims, peak memory within 5 MiB of 10 sessions; ls <= 0.3 s (default view), ls --all <= 1 s at 5,000 sessions${PG ? '' : '; PostgreSQL skipped (no --pg URL, no LANES_TEST_PG_URL)'}`,
  );
}

// conflicts: N worktrees, every pair sharing one file (and each 5 files of its own).
if (CONFLICTS.length) {
  const rows = [];
  const repo = makeRepo(5000, 'conflicts-repo'); // its own: the stores' runs above made repo-5000
  const confEnv = { ...env, LANES_HOME: join(base, 'conflicts-home') };
  const time = (fn) => {
    const t = performance.now();
    fn();
    return performance.now() - t;
  };
  let made = 0;
  let prev = null;
  for (const n of CONFLICTS) {
    for (; made < n; made++) {
      const r = spawnSync(
        process.execPath,
        [CLI, 'start', '--worktree', '--ticket', `C-${made}`, '--pid', String(process.pid), '--json'],
        { cwd: repo, env: confEnv, encoding: 'utf8' },
      );
      if (r.status !== 0) throw new Error(r.stderr);
      const wt = JSON.parse(r.stdout).worktree;
      writeFileSync(join(wt, 'pkg0', 'f0.ts'), `// changed by worktree ${made}\n`);
      for (let k = 0; k < 5; k++)
        writeFileSync(join(wt, `pkg${1 + ((made + k) % 24)}`, `own-${made}-${k}.ts`), `${made}\n`);
    }
    const floor = [];
    const mine = [];
    for (let r = 0; r < (n >= 32 ? 1 : 3); r++) {
      floor.push(time(() => sh(`TMPF=${join(base, 'cf')}; ${CONFLICTS_FLOOR}`, repo)));
      mine.push(
        time(() => {
          const r2 = spawnSync(process.execPath, [CLI, 'conflicts', '--json'], {
            cwd: repo,
            env: confEnv,
            encoding: 'utf8',
          });
          if (r2.status !== 3) throw new Error(`conflicts: ${r2.status} ${r2.stderr}`);
          const pairs = JSON.parse(r2.stdout).pairs.length;
          if (pairs !== (n * (n - 1)) / 2) throw new Error(`conflicts: ${pairs} pairs, expected ${(n * (n - 1)) / 2}`);
        }),
      );
    }
    const [f, l] = [
      percentile(
        floor.sort((a, b) => a - b),
        50,
      ),
      percentile(
        mine.sort((a, b) => a - b),
        50,
      ),
    ];
    rows.push([
      n,
      (n * (n - 1)) / 2,
      f.toFixed(0),
      l.toFixed(0),
      `${(l / f).toFixed(2)}x`,
      prev ? `${(l / prev).toFixed(2)}x` : '',
    ]);
    prev = l;
  }
  console.log(
    '\n' +
      table(
        ['worktrees', 'sharing pairs', 'floor ms (raw git)', 'lanes ms', 'lanes/floor', 'growth vs previous'],
        rows,
      ),
  );
  console.log(
    'every pair shares pkg0/f0.ts (a textual conflict); median of 3 runs (1 at 32 and more); target lanes/floor <= 1.5x',
  );
}

if (pgSchemas.length) {
  const pg = createRequire(import.meta.url)('pg');
  const c = new pg.Client({ connectionString: PG });
  await c.connect();
  for (const s of pgSchemas) await c.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
  await c.end();
}
