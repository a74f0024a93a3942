// bench/statusline: `lanes statusline`, which Claude Code runs after every message, against a bare
// `node -e 0` in the same run (target: p50 <= 1.3x). World: 8 live agent sessions of one
// repository with 200 claims and 50 recorded edits each, and this session overlapping one of them.
// Usage: node bench/statusline.mjs [--runs 40]
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, percentile, scratch, table } from './lib.mjs';

const i = process.argv.indexOf('--runs');
const RUNS = Number(i > 0 ? process.argv[i + 1] : 40);
const CLI = join(ROOT, 'dist', 'cli.cjs');
const base = scratch('lanes-bench-statusline-');
const env = { ...process.env, LANES_HOME: join(base, 'home'), CLAUDE_PID: String(process.pid) };
delete env.LANES_SESSION;
delete env.LANES_STORE;

const repo = join(base, 'repo');
mkdirSync(repo);
const sh = (cmd) => execFileSync('bash', ['-c', cmd], { cwd: repo, env }).toString();
sh('git init -q -b main && git config user.name b && git config user.email b@b && git config gc.auto 0');
for (let d = 0; d < 20; d++) {
  mkdirSync(join(repo, `pkg${d}`));
  for (let f = 0; f < 50; f++) writeFileSync(join(repo, `pkg${d}`, `f${f}.ts`), `export const v = ${f};\n`);
}
sh('git add -A && git commit -q -m files');

const lanes = (args, input, extraEnv = {}) => {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd: repo,
    env: { ...env, ...extraEnv },
    input,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`lanes ${args.join(' ')}: ${r.stderr}`);
  return r;
};
const id = (n) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const payload = (session, event, extra = {}) =>
  JSON.stringify({ session_id: session, transcript_path: '/tmp/t.jsonl', cwd: repo, hook_event_name: event, ...extra });
const edited = (session, file) =>
  lanes(
    ['hook', 'claude-code', 'post-tool-use'],
    payload(session, 'PostToolUse', { tool_name: 'Edit', tool_input: { file_path: join(repo, file) } }),
  );

const me = id(9);
for (let s = 1; s <= 9; s++)
  lanes(['hook', 'claude-code', 'session-start'], payload(id(s), 'SessionStart', { source: 'startup' }));
for (let s = 1; s <= 8; s++) {
  lanes(['claim', ...Array.from({ length: 25 }, (_, f) => `path:pkg${s}/f${f}.ts`)], '', {
    LANES_SESSION: `claude-code:${id(s)}`,
  });
  for (let f = 0; f < 50; f++) edited(id(s), `pkg${s + 10}/f${f}.ts`);
}
edited(me, 'pkg11/f3.ts');
const status = JSON.stringify({
  hook_event_name: 'Status',
  session_id: me,
  cwd: repo,
  model: { id: 'm', display_name: 'M' },
  workspace: { current_dir: repo, project_dir: repo },
});
const line = lanes(['statusline'], status).stdout;
if (!/8 other sessions · ⚠ pkg11\/f3\.ts also edited/.test(line)) throw new Error(`unexpected status line: ${line}`);

const cases = {
  'node -e 0': () => spawnSync(process.execPath, ['-e', '0']),
  'lanes statusline': () => lanes(['statusline'], status),
};
const times = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
for (let r = 0; r < RUNS; r++) {
  for (const [name, fn] of Object.entries(cases)) {
    const t = performance.now();
    fn();
    times[name].push(performance.now() - t);
  }
}
for (const xs of Object.values(times)) xs.sort((a, b) => a - b);
const bare = percentile(times['node -e 0'], 50);
console.log(
  table(
    ['call', 'p50 ms', 'p99 ms', 'vs node -e 0 (p50)'],
    Object.entries(times).map(([name, xs]) => [
      name,
      percentile(xs, 50).toFixed(1),
      percentile(xs, 99).toFixed(1),
      `${(percentile(xs, 50) / bare).toFixed(2)}x`,
    ]),
  ),
);
console.log(`${RUNS} runs each, interleaved; 9 live sessions, 200 claims, 401 recorded edits; line: ${line.trim()}`);
console.log('target: lanes statusline p50 <= 1.3x node -e 0\n');
