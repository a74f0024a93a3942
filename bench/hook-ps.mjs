// bench/hook-ps: the agent-hook hot path on the `ps` path (macOS, the BSDs), simulated on Linux
// (LANES_PLATFORM=darwin: procps' ps stands in for the Mac's, the boot identity injected), against
// the /proc path and a bare `node -e 0`, interleaved in one run. Each path has its own store with 8
// live sessions, each owned by its OWN process (so a decision has 8 pids to prove: one ps for all
// of them, never one per session), 25 path claims each (200 claims), and an agent session (9th)
// whose pre-tool-use edit is allowed, denied (a claimed path) or warned (a path another session
// edited). It also counts the ps processes of one call. Target: pre-tool-use p50 <= 1.5x node -e 0.
// Usage: node bench/hook-ps.mjs [--runs 40]
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, percentile, scratch, table } from './lib.mjs';

const i = process.argv.indexOf('--runs');
const RUNS = Number(i > 0 ? process.argv[i + 1] : 40);
const CLI = join(ROOT, 'dist', 'cli.cjs');
const base = scratch('lanes-bench-hook-ps-');
const repo = join(base, 'repo');
mkdirSync(repo);
const sh = (cmd) => execFileSync('bash', ['-c', cmd], { cwd: repo }).toString();
sh('git init -q -b main && git config user.name b && git config user.email b@b && git config gc.auto 0');
for (let d = 0; d < 20; d++) {
  mkdirSync(join(repo, `pkg${d}`));
  for (let f = 0; f < 50; f++) writeFileSync(join(repo, `pkg${d}`, `f${f}.ts`), `export const v = ${f};\n`);
}
sh('git add -A && git commit -q -m files');

// A ps that counts its calls before handing over to the real one.
const bin = join(base, 'bin');
mkdirSync(bin);
const psLog = join(base, 'ps.log');
const realPs = execFileSync('sh', ['-c', 'command -v ps'], { encoding: 'utf8' }).trim();
writeFileSync(join(bin, 'ps'), `#!/bin/sh\necho x >> '${psLog}'\nexec '${realPs}' "$@"\n`);
chmodSync(join(bin, 'ps'), 0o755);

const baseEnv = { ...process.env, CLAUDE_PID: String(process.pid) };
for (const k of Object.keys(baseEnv)) if (k.startsWith('LANES_')) delete baseEnv[k];
const paths = {
  '/proc': { ...baseEnv, LANES_HOME: join(base, 'home-proc'), LANES_PLATFORM: 'linux' },
  ps: { ...baseEnv, LANES_HOME: join(base, 'home-ps'), LANES_PLATFORM: 'darwin', LANES_TEST_BOOT_ID: 'bench-boot' },
};
const lanes = (env, args, input) => {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd: repo, env, input, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`lanes ${args.join(' ')}: ${r.stderr}`);
  return r;
};
const payload = (event, extra = {}) =>
  JSON.stringify({ session_id: 'bench-agent', transcript_path: '/t', cwd: repo, hook_event_name: event, ...extra });
const edit = (file) =>
  payload('PreToolUse', {
    tool_name: 'Edit',
    tool_input: { file_path: join(repo, file), old_string: 'a', new_string: 'b' },
  });

const owners = [];
process.on('exit', () => owners.forEach((o) => o.kill('SIGKILL')));
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));
for (const env of Object.values(paths)) {
  for (let s = 1; s <= 8; s++) {
    const owner = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], { stdio: 'ignore' });
    owners.push(owner);
    const id = lanes(env, ['start', '--pid', String(owner.pid), '--label', `s${s}`]).stdout.trim();
    const as = { ...env, LANES_SESSION: id };
    lanes(as, ['claim', ...Array.from({ length: 25 }, (_, f) => `path:pkg${s}/f${f}.ts`)]);
    lanes(as, ['state', 'set', 'lanes:touched', JSON.stringify([`pkg${s + 10}/f3.ts`])]);
  }
  lanes(env, ['hook', 'claude-code', 'session-start'], payload('SessionStart', { source: 'startup' }));
  const live = JSON.parse(lanes(env, ['ls', '--json']).stdout).filter((s) => s.state === 'live').length;
  if (live !== 9) throw new Error(`${env.LANES_PLATFORM}: ${live} live sessions, expected 9`);
}

const calls = {
  'pre-tool-use edit (allowed)': [edit('pkg19/f7.ts'), (out) => out === ''],
  'pre-tool-use edit (denied)': [edit('pkg1/f3.ts'), (out) => /"deny"/.test(out)],
  'pre-tool-use edit (warned)': [edit('pkg11/f3.ts'), (out) => /early conflict warning/.test(out)],
};
const cases = { 'node -e 0': () => spawnSync(process.execPath, ['-e', '0']) };
const psPerCall = {};
for (const [path, env] of Object.entries(paths))
  for (const [name, [input, ok]] of Object.entries(calls)) {
    const run = () => lanes(env, ['hook', 'claude-code', 'pre-tool-use'], input);
    // Counted once through the shim; timed without it (its extra sh would be counted as lanes' cost).
    writeFileSync(psLog, '');
    const counted = lanes(
      { ...env, PATH: `${bin}:${process.env.PATH}` },
      ['hook', 'claude-code', 'pre-tool-use'],
      input,
    );
    if (!ok(counted.stdout)) throw new Error(`${path} ${name}: unexpected answer`);
    psPerCall[`${name} [${path}]`] = readFileSync(psLog, 'utf8').split('\n').filter(Boolean).length;
    cases[`${name} [${path}]`] = run;
  }

const times = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
for (let r = 0; r < RUNS; r++)
  for (const [name, fn] of Object.entries(cases)) {
    const t = performance.now();
    fn();
    times[name].push(performance.now() - t);
  }
for (const xs of Object.values(times)) xs.sort((a, b) => a - b);
const bare = percentile(times['node -e 0'], 50);
const rows = Object.entries(times).map(([name, xs]) => {
  const procTwin = times[name.replace('[ps]', '[/proc]')];
  return [
    name,
    percentile(xs, 50).toFixed(1),
    percentile(xs, 99).toFixed(1),
    `${(percentile(xs, 50) / bare).toFixed(2)}x`,
    name.endsWith('[ps]') ? `${(percentile(xs, 50) / percentile(procTwin, 50)).toFixed(2)}x` : '',
    name in psPerCall ? String(psPerCall[name]) : '',
  ];
});
console.log(table(['hook call', 'p50 ms', 'p99 ms', 'vs node -e 0 (p50)', 'vs /proc (p50)', 'ps calls'], rows));
console.log(
  `${RUNS} runs each, interleaved; 8 live sessions with 8 distinct owner processes + the agent's, 200 claims; target: [ps] pre-tool-use p50 <= 1.5x node -e 0`,
);
process.exit(0); // the owner processes would keep the event loop alive
