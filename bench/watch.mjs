// The per-host watcher (lanes watch, issue 45 item 2): how soon a death is journaled and notified
// with no command run, and what it costs while nothing happens, at N live sessions.
//   node bench/watch.mjs [--sessions 50] [--idle-s 60] [--kills 10]
// Baseline in the same run: an idle node process with a 2 s timer (what any watcher costs at least).
import { spawn, execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, scratch } from './lib.mjs';

const arg = (name, def) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const N = arg('sessions', 50);
const IDLE_S = arg('idle-s', 60);
const KILLS = arg('kills', 10);
const CLI = join(ROOT, 'dist', 'cli.cjs');
const TICK = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));

const home = scratch('lanes-bench-watch-');
const repo = scratch('lanes-bench-watch-repo-');
execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: repo });
execFileSync('git', ['-c', 'user.email=b@b', '-c', 'user.name=b', 'commit', '-q', '--allow-empty', '-m', 'init'], {
  cwd: repo,
});

const owners = [];
const ids = [];
// A webhook that records when each death arrives.
const arrived = new Map();
const server = createServer((req, res) => {
  let body = '';
  req.on('data', (d) => (body += d));
  req.on('end', () => {
    // The session named in the text (its label and the command that goes on with it).
    for (const id of ids) if (body.includes(id) && !arrived.has(id)) arrived.set(id, performance.now());
    res.end('ok');
  });
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const config = join(home, 'config.toml');
writeFileSync(
  config,
  `[notify]\ndesktop = false\nwebhook = "http://127.0.0.1:${server.address().port}"\nevents = ["died"]\n`,
);
const env = { ...process.env, LANES_HOME: home, LANES_CONFIG: config, LANES_WATCH: '0', NO_COLOR: '1' };
delete env.LANES_SESSION;
const lanes = (...args) =>
  execFileSync(process.execPath, [CLI, ...args], {
    env,
    cwd: repo,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });

for (let i = 0; i < N; i++) {
  const p = spawn('sleep', ['3600'], { stdio: 'ignore' });
  owners.push(p);
  ids.push(lanes('start', '--label', `agent-${i}`, '--pid', String(p.pid)).trim());
}
const cpu = (pid) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICK;
};
const watcher = spawn(process.execPath, [CLI, 'watch', '--idle', '10m'], {
  env: { ...env, LANES_WATCH: '1' },
  cwd: repo,
  stdio: 'ignore',
});
const baseline = spawn(process.execPath, ['-e', 'setInterval(() => {}, 2000)'], { stdio: 'ignore' });
await new Promise((r) => setTimeout(r, 5000)); // both started and settled
const load0 = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
const [w0, b0, t0] = [cpu(watcher.pid), cpu(baseline.pid), performance.now()];
await new Promise((r) => setTimeout(r, IDLE_S * 1000));
const wall = (performance.now() - t0) / 1000;
const watcherPct = ((cpu(watcher.pid) - w0) / wall) * 100;
const basePct = ((cpu(baseline.pid) - b0) / wall) * 100;

// Deaths: one owner SIGKILLed at a time; time to the journal entry and to the webhook.
const journaled = [];
const notified = [];
for (let k = 0; k < KILLS; k++) {
  const id = ids[k];
  const at = performance.now();
  owners[k].kill('SIGKILL');
  for (;;) {
    const out = lanes('log', '--json', '--kind', 'session.died', '--session', id);
    if (out.trim()) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  journaled.push((performance.now() - at) / 1000);
  while (!arrived.has(id)) await new Promise((r) => setTimeout(r, 50));
  notified.push((arrived.get(id) - at) / 1000);
}
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))].toFixed(2);
console.log(
  `lanes watch, ${N} live sessions, ${new Date().toISOString().slice(0, 10)}, load ${load0}, Node ${process.version}`,
);
console.log(
  `idle ${wall.toFixed(0)} s: watcher ${watcherPct.toFixed(2)}% of a core, baseline (node, 2 s timer) ${basePct.toFixed(2)}%`,
);
console.log(
  `  watcher/baseline ${(watcherPct / Math.max(basePct, 0.001)).toFixed(1)}x; target <= 1%: ${watcherPct <= 1 ? 'met' : 'MISSED'}`,
);
console.log(`${KILLS} deaths (SIGKILL of the owner, no command run):`);
console.log(
  `  journaled after  p50 ${pct(journaled, 0.5)} s  p95 ${pct(journaled, 0.95)} s  max ${Math.max(...journaled).toFixed(2)} s`,
);
console.log(
  `  notified after   p50 ${pct(notified, 0.5)} s  p95 ${pct(notified, 0.95)} s  max ${Math.max(...notified).toFixed(2)} s; target <= 10 s: ${Math.max(...notified) <= 10 ? 'met' : 'MISSED'}`,
);
for (const p of owners) p.kill('SIGKILL');
watcher.kill('SIGTERM');
baseline.kill('SIGKILL');
server.close();
