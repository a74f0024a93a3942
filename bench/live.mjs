// bench/live: the pre-edit hook against the number of LIVE sessions (issue 28, item 1): 9 and 500
// live sessions, each with 50 edited paths (state and index, bench/scale-seed.ts), 10 path claims
// each. Three calls: an edit nobody touched or claimed (allowed, silent), one another session
// touched (the early-conflict warning), one another holds (denied). Wall time and CPU (user+sys, from
// /usr/bin/time), median of --runs, interleaved with `node -e 0` in the same run.
// Usage: node bench/live.mjs [--runs 15] [--live 9,500]
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT, percentile, scratch, table } from './lib.mjs';

const argv = process.argv;
const opt = (name, dflt) => (argv.indexOf(name) > 0 ? argv[argv.indexOf(name) + 1] : dflt);
const RUNS = Number(opt('--runs', 15));
const LIVE = opt('--live', '9,500').split(',').map(Number);
const CLI = join(ROOT, 'dist', 'cli.cjs');
const DIRS = 25;
const base = scratch('lanes-bench-live-');
const env = { ...process.env, NO_COLOR: '1', LANES_GC_AFTER_MS: 'off' };
// Node 20 parses NODE_EXTRA_CA_CERTS at every start (~100 ms): it would hide the hook's own cost.
delete env.NODE_EXTRA_CA_CERTS;
for (const k of ['LANES_SESSION', 'LANES_STORE', 'LANES_HOME']) delete env[k];
const repo = join(base, 'repo');
execFileSync('bash', [
  '-c',
  `git init -q -b main ${repo} && cd ${repo} && for d in $(seq 0 ${DIRS - 1}); do mkdir pkg$d; echo x > pkg$d/f0.ts; done && git add -A && git -c user.name=b -c user.email=b@b commit -qm i`,
]);
const uuid = (n) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const ME = uuid(1);

const worlds = LIVE.map((live) => {
  const store = join(base, `live-${live}.db`);
  const spec = {
    live,
    dead: 0,
    ended: 0,
    claims: live * 10,
    touched: 50,
    repo: join(repo, '.git'),
    worktree: repo,
    ownerPid: process.pid,
    dirs: DIRS,
  };
  execFileSync(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'bench', 'scale-seed.ts'), store, JSON.stringify(spec)],
    { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  return { live, storeEnv: { ...env, LANES_STORE: store } };
});
const edit = (file) =>
  JSON.stringify({
    session_id: ME,
    transcript_path: '/tmp/t.jsonl',
    cwd: repo,
    hook_event_name: 'PreToolUse',
    tool_name: 'Edit',
    tool_input: { file_path: join(repo, file), old_string: 'a', new_string: 'b' },
  });
// Live session 1 (uuid 2, index 1) touched pkg1/t1_0.ts; pkg0/f0.ts is claimed by the first holder.
const OPS = {
  'edit, untouched (allowed)': edit('pkg24/free.ts'),
  'edit, touched by another (warning)': edit('pkg1/t1_0.ts'),
  'edit, claimed by another (denied)': edit('pkg0/f0.ts'),
};
const timed = (cmd, args, input, e) => {
  const r = spawnSync('/usr/bin/time', ['-f', 'TIME %e %U %S', cmd, ...args], {
    input,
    env: e,
    cwd: repo,
    encoding: 'utf8',
  });
  const m = /TIME ([\d.]+) ([\d.]+) ([\d.]+)/.exec(r.stderr);
  return { r, wall: Number(m[1]) * 1000, cpu: (Number(m[2]) + Number(m[3])) * 1000 };
};
// Each case answers as expected on every store, first (and the first call records nothing new).
for (const w of worlds)
  for (const [op, input] of Object.entries(OPS)) {
    const out = spawnSync(process.execPath, [CLI, 'hook', 'claude-code', 'pre-tool-use'], {
      input,
      env: w.storeEnv,
      cwd: repo,
      encoding: 'utf8',
    }).stdout;
    const want = op.includes('denied') ? /"deny"/ : op.includes('warning') ? /early conflict warning/ : /^$/;
    if (!want.test(out)) throw new Error(`${w.live} live, ${op}: unexpected answer ${out}`);
  }
const bare = { wall: [], cpu: [] };
const times = new Map();
for (let r = 0; r < RUNS; r++) {
  const b = timed(process.execPath, ['-e', '0'], '', env);
  bare.wall.push(b.wall);
  bare.cpu.push(b.cpu);
  for (const w of worlds)
    for (const [op, input] of Object.entries(OPS)) {
      const t = timed(process.execPath, [CLI, 'hook', 'claude-code', 'pre-tool-use'], input, w.storeEnv);
      const k = `${w.live}\0${op}`;
      const rec = times.get(k) ?? times.set(k, { wall: [], cpu: [] }).get(k);
      rec.wall.push(t.wall);
      rec.cpu.push(t.cpu);
    }
}
const med = (xs) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );
const rows = [];
for (const [op] of Object.entries(OPS))
  for (const w of worlds) {
    const t = times.get(`${w.live}\0${op}`);
    const small = times.get(`${worlds[0].live}\0${op}`);
    rows.push([
      op,
      `${w.live} live`,
      med(t.wall).toFixed(0),
      `${(med(t.wall) / med(bare.wall)).toFixed(2)}x`,
      med(t.cpu).toFixed(0),
      `${(med(t.cpu) / med(bare.cpu)).toFixed(2)}x`,
      `${(med(t.cpu) / med(small.cpu)).toFixed(2)}x`,
    ]);
  }
console.log(
  `node -e 0: wall ${med(bare.wall).toFixed(0)} ms, CPU ${med(bare.cpu).toFixed(0)} ms (median of ${RUNS}; /usr/bin/time has 10 ms resolution)`,
);
console.log(
  table(
    ['pre-edit hook', 'store', 'wall ms', 'wall / node', 'CPU ms', 'CPU / node', `CPU / ${worlds[0].live} live`],
    rows,
  ),
);
