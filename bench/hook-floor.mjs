// bench/hook-floor: how low `lanes hook claude-code pre-tool-use` could go if lanes loaded no code
// the call does not run (issue 25: the hook <= 1.3x `node -e 0` on every tested Node). For each
// Node given, it makes a copy of dist/ in which every function of hot.cjs that the hook's calls
// never run (V8's precise coverage of two calls, at any depth) has a body that only reports itself
// and throws: the upper bound of any bundle split, per command or per event. A copy one of whose
// stripped functions is called after all is made again with that function kept. Then, interleaved in the same run: `node -e 0`, this
// build's hook and the stripped copy's hook (each with its own warm code cache), wall time per run;
// with --callgrind (valgrind installed) also instructions, which the machine's load does not move.
// The stripped copy must answer exactly as this build does (else the coverage missed a path).
// Usage: node bench/hook-floor.mjs [--runs 60] [--node PATH]... [--callgrind]
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as acorn from 'acorn';
import { ROOT, percentile, scratch, table } from './lib.mjs';

const opt = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const RUNS = Number(opt('--runs', 60));
const NODES = process.argv.flatMap((a, i) => (process.argv[i - 1] === '--node' ? [a] : []));
if (!NODES.length) NODES.push(process.execPath);
const CALLGRIND = process.argv.includes('--callgrind');
const base = scratch('lanes-bench-hook-floor-');
const env = {
  ...process.env,
  LANES_HOME: join(base, 'home'),
  LANES_GC_AFTER_MS: 'off',
  NO_COLOR: '1',
  CLAUDE_PID: String(process.pid),
  // A session's lease is rewritten by a call at most every twelfth of it (5 s of 60): a run under
  // callgrind takes seconds, and would write it each time. An hour's lease keeps every measured
  // call on the common path, a tool call within 5 s of the last (and the stripped copy on its path).
  LANES_LEASE_MS: '3600000',
};
// Node 20 parses NODE_EXTRA_CA_CERTS at every start (~100 ms): it would hide the hook's own cost.
for (const k of ['NODE_EXTRA_CA_CERTS', 'LANES_SESSION', 'LANES_STORE', 'NODE_OPTIONS']) delete env[k];

// A small repository and one live session (registered by its session-start hook); the measured
// call is an allowed edit of a file nobody claims.
const repo = join(base, 'repo');
mkdirSync(repo);
execFileSync('bash', ['-c', 'git init -q -b main && git config user.email b@b && git config user.name b'], {
  cwd: repo,
});
writeFileSync(join(repo, 'a.ts'), 'export const a = 1;\n');
execFileSync('git', ['add', '-A'], { cwd: repo });
execFileSync('git', ['commit', '-qm', 'a'], { cwd: repo, env });
const session = '00000000-0000-4000-8000-000000000001';
const payload = (event, extra) => JSON.stringify({ session_id: session, cwd: repo, hook_event_name: event, ...extra });
const EDIT = payload('PreToolUse', { tool_name: 'Edit', tool_input: { file_path: join(repo, 'a.ts') } });

/** One hook call of `dist` on `node`, its code cache in `cache`; extra env for coverage. */
function hook(node, dist, cache, extra = {}, input = EDIT, event = 'pre-tool-use') {
  const r = spawnSync(node, [join(dist, 'cli.cjs'), 'hook', 'claude-code', event], {
    cwd: repo,
    env: { ...env, XDG_CACHE_HOME: cache, ...extra },
    input,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`hook on ${node}: exit ${r.status}: ${r.stderr}`);
  return r;
}

/**
 * A copy of dist/ whose hot.cjs keeps only the functions the hook's calls run on `node`: those run
 * in two calls under coverage, and those in `keep` (seen called in a stripped copy made before).
 */
function stripped(node, dir, keep) {
  const dist = join(dir, 'dist');
  rmSync(dir, { recursive: true, force: true });
  cpSync(join(ROOT, 'dist'), dist, { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  // Two calls (the first edit of a path records it; the next ones find it), loaded by require (no
  // code cache), so the coverage's offsets are the file's own. Never run: in neither call.
  const runs = new Map();
  for (let call = 0; call < 2; call++) {
    const cov = join(dir, `coverage-${call}`);
    hook(node, dist, join(dir, 'cache-coverage'), { NODE_V8_COVERAGE: cov, LANES_NO_CODE_CACHE: '1' });
    for (const f of readdirSync(cov))
      for (const script of JSON.parse(readFileSync(join(cov, f), 'utf8')).result)
        if (script.url.endsWith('/hot.cjs'))
          for (const fn of script.functions) {
            const end = fn.ranges[0].endOffset;
            runs.set(end, (runs.get(end) ?? 0) + fn.ranges[0].count);
          }
  }
  const never = new Set([...runs].filter(([end, n]) => n === 0 && !keep.has(end)).map(([end]) => end));
  const file = join(dist, 'hot.cjs');
  const text = readFileSync(file, 'utf8');
  const edits = [];
  let functions = 0;
  const walk = (node, inside) => {
    if (!node || typeof node.type !== 'string') return;
    const fn = /Function/.test(node.type);
    if (fn) functions++;
    // A function never run whose enclosing one is kept: its body goes (the ones inside with it).
    const strip = fn && !inside && never.has(node.end);
    // A stripped function called after all (a path the coverage's calls did not take: a heartbeat
    // due, a record already there) says so on stderr and throws; it is kept in the next copy.
    const hit = `lanes_bench_stripped(${node.end})`;
    if (strip) edits.push([node.body.start, node.body.end, node.body.type === 'BlockStatement' ? `{${hit}}` : hit]);
    for (const v of Object.values(node))
      for (const child of Array.isArray(v) ? v : [v])
        if (child && typeof child === 'object') walk(child, inside || strip);
  };
  walk(acorn.parse(text, { ecmaVersion: 'latest', sourceType: 'script' }), false);
  let out = text;
  for (const [s, e, r] of edits.sort((a, b) => b[0] - a[0])) out = out.slice(0, s) + r + out.slice(e);
  const report = `var lanes_bench_stripped=(end)=>{require("fs").writeSync(2,"${STRIPPED_RAN} "+end+"\\n");throw new Error("stripped")};`;
  writeFileSync(file, report + out);
  return { dist, functions, strippedFns: edits.length, bytes: [text.length, out.length] };
}

const STRIPPED_RAN = 'lanes-bench: stripped function ran, ending at';
/** The ends of the stripped functions a run called (its stderr). */
const strippedRan = (stderr) =>
  [...String(stderr).matchAll(new RegExp(`${STRIPPED_RAN} (\\d+)`, 'g'))].map((m) => Number(m[1]));

/** Instructions of one run under callgrind, less V8's random hash-seed search (detail::sprp). */
function instructions(cmd, args, extra, input) {
  const out = join(base, 'callgrind.out');
  const run = spawnSync('valgrind', ['--tool=callgrind', `--callgrind-out-file=${out}`, cmd, ...args], {
    cwd: repo,
    env: { ...env, ...extra },
    input,
  });
  if (strippedRan(run.stderr).length)
    throw new Error(`a run under callgrind called a stripped function: ${run.stderr}`);
  const report = execFileSync('callgrind_annotate', [out], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const count = (re) => Number((report.match(re)?.[1] ?? '0').replace(/,/g, ''));
  return count(/^\s*([\d,]+)\s.*PROGRAM TOTALS/m) - count(/^\s*([\d,]+)\s.*detail::sprp/m);
}

const rows = [];
for (const node of NODES) {
  const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
  const dir = join(base, version);
  mkdirSync(dir);
  const cacheOf = (name) => {
    const c = join(dir, `cache-${name}`);
    mkdirSync(join(c, 'lanes'), { recursive: true, mode: 0o700 });
    return c;
  };
  const build = join(ROOT, 'dist');
  hook(node, build, cacheOf('build'), {}, payload('SessionStart', { source: 'startup' }), 'session-start');
  // Stripped again, keeping what a copy's runs called, until ten calls in a row call nothing stripped.
  const keep = new Set();
  let s;
  for (let attempt = 1; ; attempt++) {
    s = stripped(node, join(dir, 'stripped'), keep);
    rmSync(join(dir, 'cache-stripped'), { recursive: true, force: true });
    const ran = [];
    for (let i = 0; i < 10; i++) ran.push(...strippedRan(hook(node, s.dist, cacheOf('stripped')).stderr));
    if (!ran.length) break;
    if (attempt === 5) throw new Error(`${version}: stripped functions still called after 5 copies: ${ran}`);
    for (const end of ran) keep.add(end);
  }
  // The same answer from both (and this build's code cache warm: it is saved again in its first 8 runs).
  const answers = new Set();
  for (let i = 0; i < 10; i++) {
    answers.add(hook(node, build, cacheOf('build')).stdout);
    answers.add(hook(node, s.dist, cacheOf('stripped')).stdout);
  }
  if (answers.size !== 1)
    throw new Error(`${version}: the stripped copy answers differently: ${[...answers].join(' | ')}`);
  const variants = {
    'node -e 0': { cmd: node, args: ['-e', '0'], extra: {} },
    'the hook (this build)': {
      cmd: node,
      args: [join(build, 'cli.cjs'), 'hook', 'claude-code', 'pre-tool-use'],
      extra: { XDG_CACHE_HOME: cacheOf('build') },
    },
    'the hook, every function it never runs stripped': {
      cmd: node,
      args: [join(s.dist, 'cli.cjs'), 'hook', 'claude-code', 'pre-tool-use'],
      extra: { XDG_CACHE_HOME: cacheOf('stripped') },
    },
  };
  const wall = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
  const names = Object.keys(variants);
  for (let r = 0; r < RUNS; r++)
    for (let i = 0; i < names.length; i++) {
      const name = names[(r + i) % names.length];
      const v = variants[name];
      const t = process.hrtime.bigint();
      const run = spawnSync(v.cmd, v.args, { cwd: repo, env: { ...env, ...v.extra }, input: EDIT });
      wall[name].push(Number(process.hrtime.bigint() - t) / 1e6);
      if (strippedRan(run.stderr).length) throw new Error(`${version}: a measured run called a stripped function`);
    }
  const p50 = (name) =>
    percentile(
      [...wall[name]].sort((a, b) => a - b),
      50,
    );
  const instr = {};
  if (CALLGRIND)
    for (const [name, v] of Object.entries(variants)) {
      const runs = [0, 1, 2].map(() => instructions(v.cmd, v.args, v.extra, EDIT)).sort((a, b) => a - b);
      instr[name] = runs[1];
    }
  for (const name of names)
    rows.push([
      version,
      name,
      p50(name).toFixed(1),
      `${(p50(name) / p50('node -e 0')).toFixed(2)}x`,
      CALLGRIND ? `${(instr[name] / 1e6).toFixed(1)} M` : '',
      CALLGRIND ? `${(instr[name] / instr['node -e 0']).toFixed(3)}x` : '',
    ]);
  rows.push([
    version,
    `(stripped: ${s.strippedFns} of ${s.functions} functions, ${keep.size} kept after a copy called them, hot.cjs ${s.bytes[0]} -> ${s.bytes[1]} bytes)`,
    '',
    '',
    '',
    '',
  ]);
}
console.log(table(['node', 'run', 'wall p50 ms', 'of node -e 0', 'instructions', 'of node -e 0'], rows));
console.log(
  `${RUNS} runs each, interleaved; an allowed edit by a live session; target: the hook <= 1.3x node -e 0. The stripped` +
    ' copy is the floor of any bundle split: what it costs above node -e 0 is Node starting a file, the code cache,' +
    ' and the work the call does.',
);
