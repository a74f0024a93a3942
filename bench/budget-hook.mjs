// bench/budget-hook: what a budget costs a tool call (issue 50, item 4). The allowed-Edit hook of a
// Claude Code session whose transcript is 10 MB and grows by one answer (~2 KB) before each call,
// measured as the CPU time of the hook processes (bash's `times`: user + system of its children),
// in rounds that alternate: no budget (the baseline: no LANES_BUDGET, no [budget] in the user
// config) and a budget (LANES_BUDGET: the spend read at each call, from where the last read
// stopped). The first look at the 10 MB transcript (no cache yet) is timed apart: once per record.
// Target: the budget's CPU <= 1.05x the baseline's.
// Usage: node bench/budget-hook.mjs [--calls 30] [--rounds 6] [--mb 10]
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { ROOT, scratch, table } from './lib.mjs';

const opt = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const CALLS = opt('--calls', 30);
const ROUNDS = opt('--rounds', 6);
const MB = opt('--mb', 10);
const CLI = join(ROOT, 'dist', 'cli.cjs');
const base = scratch('lanes-bench-budget-');
const repo = join(base, 'repo');
mkdirSync(repo);
execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: repo });
writeFileSync(join(repo, 'a.ts'), 'export const a = 1;\n');
execFileSync('git', ['-c', 'user.email=b@b', '-c', 'user.name=b', 'commit', '-qam', 'a', '--allow-empty'], {
  cwd: repo,
});

/** One answer of the model as Claude Code writes it: ~2 KB, with its usage. */
const answer = (n) =>
  JSON.stringify({
    type: 'assistant',
    uuid: `u-${n}`,
    message: {
      id: `msg_${n}`,
      model: 'claude-sonnet-4-5',
      role: 'assistant',
      content: [
        { type: 'text', text: 'x'.repeat(1800) },
        { type: 'tool_use', id: `t-${n}`, name: 'Edit', input: {} },
      ],
      usage: {
        input_tokens: 1200,
        output_tokens: 300,
        cache_read_input_tokens: 40000,
        cache_creation_input_tokens: 500,
      },
    },
  });

function world(name, budget) {
  const home = join(base, `home-${name}`);
  const transcript = join(base, `transcript-${name}.jsonl`);
  const lines = [];
  let size = 0;
  for (let n = 0; size < MB * 1024 * 1024; n++) {
    const l = answer(n);
    lines.push(l);
    size += l.length + 1;
  }
  writeFileSync(transcript, `${lines.join('\n')}\n`);
  const env = {
    ...process.env,
    LANES_HOME: home,
    CLAUDE_PID: String(process.pid),
    XDG_CONFIG_HOME: join(base, `xdg-${name}`),
  };
  delete env.LANES_SESSION;
  delete env.LANES_STORE;
  delete env.LANES_BUDGET;
  delete env.NODE_EXTRA_CA_CERTS;
  if (budget) env.LANES_BUDGET = 'usd=100000';
  const id = `cccccccc-0000-4000-8000-00000000000${name === 'budget' ? 'b' : 'a'}`;
  const start = JSON.stringify({
    session_id: id,
    transcript_path: transcript,
    cwd: repo,
    hook_event_name: 'SessionStart',
    source: 'startup',
  });
  execFileSync(process.execPath, [CLI, 'hook', 'claude-code', 'session-start'], { env, input: start, cwd: repo });
  const edit = JSON.stringify({
    session_id: id,
    transcript_path: transcript,
    cwd: repo,
    hook_event_name: 'PreToolUse',
    tool_name: 'Edit',
    tool_input: { file_path: join(repo, 'a.ts'), old_string: 'a = 1', new_string: 'a = 2' },
  });
  const payload = join(base, `edit-${name}.json`);
  writeFileSync(payload, edit);
  return { name, env, transcript, payload, home };
}

/** CPU ms of `calls` hook calls, each after one answer appended by bash's own printf (no child). */
function cpuOf(w, calls) {
  const line = answer(1e9).replace(/'/g, "'\\''");
  const script = `for i in $(seq ${calls}); do printf '%s\\n' '${line}' >> '${w.transcript}'; '${process.execPath}' '${CLI}' hook claude-code pre-tool-use < '${w.payload}' > /dev/null || exit 1; done; times`;
  const r = spawnSync('bash', ['-c', script], { env: w.env, cwd: repo, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`hook failed: ${r.stderr}`);
  const children = r.stdout.trim().split('\n').pop().split(/\s+/);
  const s = (t) => {
    const m = /(\d+)m([\d.]+)s/.exec(t);
    return (Number(m[1]) * 60 + Number(m[2])) * 1000;
  };
  return s(children[0]) + s(children[1]);
}

const load0 = loadavg()[0];
const plain = world('plain', false);
const budgeted = world('budget', true);
// The first look at a 10 MB record: no cache yet (read once per record, then from its offset).
const firstLook = (() => {
  const t0 = performance.now();
  cpuOf(budgeted, 1);
  return performance.now() - t0;
})();
const plainFirst = (() => {
  const t0 = performance.now();
  cpuOf(plain, 1);
  return performance.now() - t0;
})();
const rows = [];
let sumPlain = 0;
let sumBudget = 0;
for (let r = 0; r < ROUNDS; r++) {
  const [a, b] = r % 2 ? [budgeted, plain] : [plain, budgeted];
  const ta = cpuOf(a, CALLS);
  const tb = cpuOf(b, CALLS);
  const p = a === plain ? ta : tb;
  const q = a === plain ? tb : ta;
  sumPlain += p;
  sumBudget += q;
  rows.push([r + 1, (p / CALLS).toFixed(1), (q / CALLS).toFixed(1), (q / p).toFixed(3)]);
}
console.log(
  `bench/budget-hook: ${CALLS} allowed-Edit hook calls per side per round, transcript ${(statSync(budgeted.transcript).size / 1048576).toFixed(1)} MB growing ~2 KB a call; Node ${process.versions.node}; load ${load0.toFixed(1)} -> ${loadavg()[0].toFixed(1)}`,
);
console.log(table(['round', 'no budget ms CPU/call', 'budget ms CPU/call', 'ratio'], rows));
console.log(`all rounds: budget / no budget = ${(sumBudget / sumPlain).toFixed(3)} (target <= 1.05)`);
console.log(
  `first look at the ${MB} MB transcript (no cache), wall: ${firstLook.toFixed(0)} ms with a budget, ${plainFirst.toFixed(0)} ms without`,
);
rmSync(plain.home, { recursive: true, force: true });
