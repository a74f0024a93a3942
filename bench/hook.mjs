// bench/hook: the agent-hook hot path. With 8 live sessions, 200 claims and a 5,000-file
// repository: median and p99 wall time of `lanes hook claude-code pre-tool-use` on an edit
// payload (allowed, denied and warned) and of the session-start hook, alternating with a bare
// `node -e 0` in the same run. Also the session-end hook with dirty work (target <= 0.5 s).
// With a PostgreSQL server (--pg URL, default $LANES_TEST_PG_URL) the same world is built on it too
// and the hook calls on both stores are interleaved: the PostgreSQL median against SQLite's.
// Usage: node bench/hook.mjs [--runs 40] [--files 5000] [--pg postgres://…]
import { execFileSync, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, percentile, scratch, table } from './lib.mjs';

const opt = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const RUNS = Number(opt('--runs', 40));
const FILES = Number(opt('--files', 5000));
const PG = opt('--pg', process.env.LANES_TEST_PG_URL ?? '');
const CLI = join(ROOT, 'dist', 'cli.cjs');
const base = scratch('lanes-bench-hook-');
const env = { ...process.env, LANES_HOME: join(base, 'home'), CLAUDE_PID: String(process.pid) };
// Node 20 parses NODE_EXTRA_CA_CERTS at every start (~100 ms): it would hide the hook's own cost.
delete env.NODE_EXTRA_CA_CERTS;
delete env.LANES_SESSION;
delete env.LANES_STORE;
const pgSchema = `bench_hook_${process.pid}`;
const pgUrl = PG
  ? (() => {
      const u = new URL(PG);
      u.searchParams.set('schema', pgSchema);
      return u.toString();
    })()
  : null;

// A 5,000-file repository in 25 directories.
const repo = join(base, 'repo');
mkdirSync(repo);
const sh = (cmd, cwd = repo) => execFileSync('bash', ['-c', cmd], { cwd, env }).toString();
sh('git init -q -b main && git config user.name b && git config user.email b@b && git config gc.auto 0');
for (let d = 0; d < 25; d++) {
  mkdirSync(join(repo, `pkg${d}`));
  for (let f = 0; f < FILES / 25; f++)
    writeFileSync(join(repo, `pkg${d}`, `f${f}.ts`), `export const v${f} = ${d * 1000 + f};\n`);
}
sh('git add -A && git commit -q -m files');

let storeEnv = {};
const lanes = (args, input, extraEnv = {}) => {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd: repo,
    env: { ...env, ...storeEnv, ...extraEnv },
    input,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`lanes ${args.join(' ')}: ${r.stderr}`);
  return r;
};
const id = (n) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const payload = (session, event, extra = {}) =>
  JSON.stringify({ session_id: session, transcript_path: '/tmp/t.jsonl', cwd: repo, hook_event_name: event, ...extra });
const edit = (session, file) =>
  payload(session, 'PreToolUse', {
    tool_name: 'Edit',
    tool_use_id: 't',
    tool_input: { file_path: join(repo, file), old_string: 'a', new_string: 'b' },
  });

// 8 live sessions; each claims 25 files (200 claims) and has edited 50 more.
const me = id(9);
function world() {
  for (let s = 1; s <= 8; s++) {
    lanes(['hook', 'claude-code', 'session-start'], payload(id(s), 'SessionStart', { source: 'startup' }));
    const claims = Array.from({ length: 25 }, (_, i) => `path:pkg${s}/f${i}.ts`);
    lanes(['claim', ...claims], '', { LANES_SESSION: `claude-code:${id(s)}` });
    for (let i = 0; i < 50; i++)
      lanes(
        ['hook', 'claude-code', 'post-tool-use'],
        payload(id(s), 'PostToolUse', {
          tool_name: 'Edit',
          tool_input: { file_path: join(repo, `pkg${s + 10}/f${i}.ts`) },
        }),
      );
  }
  lanes(['hook', 'claude-code', 'session-start'], payload(me, 'SessionStart', { source: 'startup' }));
  return JSON.parse(lanes(['claims', '--all', '--json']).stdout).length;
}
const stores = { SQLite: {} };
if (pgUrl) stores.PostgreSQL = { LANES_STORE: pgUrl };
let claimsNow = 0;
for (const e of Object.values(stores)) {
  storeEnv = e;
  claimsNow = world();
}
const within = (e, fn) => () => {
  storeEnv = e;
  return fn();
};
const hookCases = {
  'pre-tool-use edit (allowed)': () => lanes(['hook', 'claude-code', 'pre-tool-use'], edit(me, 'pkg20/f7.ts')),
  'pre-tool-use edit (denied)': () => lanes(['hook', 'claude-code', 'pre-tool-use'], edit(me, 'pkg1/f3.ts')),
  'pre-tool-use edit (warned)': () => lanes(['hook', 'claude-code', 'pre-tool-use'], edit(me, 'pkg11/f3.ts')),
  'session-start (re-attach)': () =>
    lanes(['hook', 'claude-code', 'session-start'], payload(me, 'SessionStart', { source: 'resume' })),
};
const cases = { 'node -e 0': () => spawnSync(process.execPath, ['-e', '0']) };
for (const [store, e] of Object.entries(stores)) {
  for (const [name, fn] of Object.entries(hookCases))
    cases[`${name}${store === 'SQLite' ? '' : ` [${store}]`}`] = within(e, fn);
}
// Sanity: the answers are what they should be, on every store.
for (const [store, e] of Object.entries(stores)) {
  const tag = store === 'SQLite' ? '' : ` [${store}]`;
  if (!/"deny"/.test(cases[`pre-tool-use edit (denied)${tag}`]().stdout))
    throw new Error(`${store}: the denied case was not denied`);
  if (!/early conflict warning/.test(cases[`pre-tool-use edit (warned)${tag}`]().stdout))
    throw new Error(`${store}: the warned case was not warned`);
  if (cases[`pre-tool-use edit (allowed)${tag}`]().stdout !== '')
    throw new Error(`${store}: the allowed case printed something`);
  void e;
}

const times = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
for (let i = 0; i < RUNS; i++) {
  for (const [name, fn] of Object.entries(cases)) {
    const t = performance.now();
    fn();
    times[name].push(performance.now() - t);
  }
}
const bare = times['node -e 0'].sort((a, b) => a - b);
for (const xs of Object.values(times)) xs.sort((a, b) => a - b);
const rows = Object.entries(times).map(([name, xs]) => {
  const sqliteTwin = times[name.replace(/ \[PostgreSQL\]$/, '')];
  return [
    name,
    percentile(xs, 50).toFixed(1),
    percentile(xs, 99).toFixed(1),
    `${(percentile(xs, 50) / percentile(bare, 50)).toFixed(2)}x`,
    name.endsWith('[PostgreSQL]') ? `${(percentile(xs, 50) / percentile(sqliteTwin, 50)).toFixed(2)}x` : '',
  ];
});
console.log(table(['hook call', 'p50 ms', 'p99 ms', 'vs node -e 0 (p50)', 'vs SQLite (p50)'], rows));
console.log(
  `${RUNS} runs each, interleaved; ${FILES} files, 8 live sessions + 1, ${claimsNow} claims; stores: ${Object.keys(stores).join(', ')}${pgUrl ? '' : ' (PostgreSQL skipped: no --pg URL and no LANES_TEST_PG_URL)'}; targets: pre-tool-use p50 <= 1.3x node -e 0 (SQLite), PostgreSQL <= 1.5x SQLite\n`,
);

// Session end with uncommitted work (snapshot + release + end), 5 sessions, on SQLite.
storeEnv = {};
const ends = [];
for (let s = 1; s <= 5; s++) {
  writeFileSync(join(repo, `pkg${s}`, 'f0.ts'), `// dirty ${s}\n`);
  const t = performance.now();
  const r = lanes(
    ['hook', 'claude-code', 'session-end'],
    payload(id(s), 'SessionEnd', { reason: 'prompt_input_exit' }),
  );
  ends.push(performance.now() - t);
  if (!/work saved/.test(r.stderr)) throw new Error(`no snapshot on end: ${r.stderr}`);
}
ends.sort((a, b) => a - b);
console.log(
  table(
    ['session-end hook (dirty worktree)', 'p50 ms', 'max ms', 'target'],
    [['snapshot + release + end', percentile(ends, 50).toFixed(0), ends[ends.length - 1].toFixed(0), '<= 500 ms']],
  ),
);

if (pgUrl) {
  const pg = createRequire(import.meta.url)('pg');
  const c = new pg.Client({ connectionString: PG });
  await c.connect();
  await c.query(`DROP SCHEMA IF EXISTS "${pgSchema}" CASCADE`);
  await c.end();
}
