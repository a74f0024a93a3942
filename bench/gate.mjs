// bench/gate: K processes x N increments of one counter under a cross-process lock.
//   lanes      state.mutate() on one session (the gate + the SQLite store, real files)
//   flock      kernel lock (fcntl.flock via python3): the floor
//   lockfile   npm proper-lockfile
// Prints throughput, p50/p99 wait per operation, checks the final counter = K x N, and the
// uncontended in-process mutate() p50. Targets at K = 4: lanes >= 60% of flock, >= 20x lockfile;
// uncontended p50 <= 0.2 ms.
// Usage: node bench/gate.mjs [--k 1,2,4,8] [--n 2000] [--lockfile-n 200]
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, percentile, runWorkers, scratch, table } from './lib.mjs';

const opt = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const KS = opt('--k', '1,2,4,8').split(',').map(Number);
const N = Number(opt('--n', '2000'));
const LOCKFILE_N = Number(opt('--lockfile-n', '200'));
const { openLanes } = await import(join(ROOT, 'dist', 'index.js'));

async function lanesRun(k, n) {
  const dir = scratch('lanes-gate-');
  const store = join(dir, 'lanes.db');
  const setup = await openLanes({ store, session: null, notice: false });
  const { id } = await setup.sessions.start({ pid: process.pid, label: 'gate-bench' });
  const results = await runWorkers(
    Array.from({ length: k }, () => [
      process.execPath,
      [join(ROOT, 'bench', 'gate-worker.mjs'), 'lanes', String(n), store, id],
    ]),
    process.env,
  );
  const final = (await setup.state.get(id))?.n;
  await setup.close();
  return { results, final };
}

async function fileRun(kind, k, n) {
  const dir = scratch('lanes-gate-');
  const counter = join(dir, 'counter');
  writeFileSync(counter, '0');
  const cmd =
    kind === 'flock'
      ? ['python3', [join(ROOT, 'bench', 'gate-flock.py'), counter, String(n)]]
      : [process.execPath, [join(ROOT, 'bench', 'gate-worker.mjs'), 'lockfile', String(n), counter]];
  const results = await runWorkers(
    Array.from({ length: k }, () => cmd),
    process.env,
  );
  return { results, final: Number(readFileSync(counter, 'utf8')) };
}

function summarize(name, k, n, { results, final }) {
  const start = Math.min(...results.map((r) => r.start));
  const end = Math.max(...results.map((r) => r.end));
  const lat = results.flatMap((r) => r.lat).sort((a, b) => a - b);
  const ops = k * n;
  return {
    name,
    k,
    n,
    ops,
    throughput: ops / ((end - start) / 1000),
    p50: percentile(lat, 50),
    p99: percentile(lat, 99),
    final,
    ok: final === ops,
  };
}

const rows = [];
const byK = {};
for (const k of KS) {
  const l = summarize('lanes', k, N, await lanesRun(k, N));
  const f = summarize('flock', k, N, await fileRun('flock', k, N));
  const p = summarize('proper-lockfile', k, LOCKFILE_N, await fileRun('lockfile', k, LOCKFILE_N));
  byK[k] = { l, f, p };
  for (const r of [l, f, p])
    rows.push([
      r.name,
      k,
      r.n,
      r.ops,
      Math.round(r.throughput),
      r.p50.toFixed(3),
      r.p99.toFixed(3),
      `${r.final}${r.ok ? '' : ' WRONG'}`,
    ]);
  rows.push(['  lanes/flock', k, '', '', `${(l.throughput / f.throughput).toFixed(2)}x`, '', '', '']);
  rows.push(['  lanes/proper-lockfile', k, '', '', `${(l.throughput / p.throughput).toFixed(1)}x`, '', '', '']);
}
console.log(table(['lock', 'K', 'N each', 'ops', 'ops/s', 'p50 ms', 'p99 ms', 'final counter'], rows));

// Uncontended, in-process: the cost of a mutate() when nobody else wants the gate.
const dir = scratch('lanes-gate-');
const lanes = await openLanes({ store: join(dir, 'lanes.db'), session: null, notice: false });
const { id } = await lanes.sessions.start({ pid: process.pid, label: 'uncontended' });
const lat = [];
for (let i = 0; i < 5000; i++) {
  const t = performance.now();
  await lanes.state.mutate(id, (s) => ({ n: (s?.n ?? 0) + 1 }));
  lat.push(performance.now() - t);
}
await lanes.close();
lat.sort((a, b) => a - b);
const p50 = percentile(lat.slice(500), 50);
console.log(
  `\nuncontended in-process mutate(): p50 ${p50.toFixed(3)} ms, p99 ${percentile(lat, 99).toFixed(3)} ms (5,000 calls; target p50 <= 0.2 ms)`,
);
const k4 = byK[4];
if (k4) {
  console.log(
    `K=4: lanes ${((k4.l.throughput / k4.f.throughput) * 100).toFixed(0)}% of flock throughput (target >= 60%), ${(k4.l.throughput / k4.p.throughput).toFixed(1)}x proper-lockfile (target >= 20x)`,
  );
}
const wrong = rows.some((r) => String(r[7]).includes('WRONG'));
if (wrong) console.log('FAIL: a final counter was wrong (lost increments)');
process.exitCode = wrong ? 1 : 0;
