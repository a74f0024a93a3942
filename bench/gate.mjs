// bench/gate: K processes increment one counter under a cross-process lock for a fixed time each
// run (2 s by default), in the same run for:
//   lanes plain   state.mutate() with a plain function on one session (SQLite's one-step path)
//   lanes async   state.mutate() with a function declared async (the gate path: take, run, release)
//   flock         a kernel lock (fcntl.flock via python3): the floor
//   sqlite        one raw SQLite write transaction per operation, no gate (one run per K): the
//                 floor under lanes, and how fair SQLite's own write lock is
//   lockfile      npm proper-lockfile (one run per K)
// Each lanes run (both kinds, the order turned every other round) runs between two flock runs and
// is compared with their mean. Reported beside throughput:
// hand-overs (the lock passing from one worker to another, counted inside the critical section),
// the wait per operation (from the call to entering the critical section: p50, p99, the longest),
// each worker's share of the operations, and the workers' CPU time (per operation, and as a share
// of the run: on a machine others use too, a lock whose waiters sleep gets less of it than one
// whose waiters are woken in a herd). The final counter must equal the operations done.
// Targets at K = 4, for both kinds, in every round: >= 60% of flock's throughput, and a longest
// wait no worse than 2x flock's. Also: >= 20x proper-lockfile, uncontended mutate() p50 <= 0.2 ms.
// Usage: node bench/gate.mjs [--k 4] [--rounds 5] [--seconds 2] [--kinds plain,async]
//          [--vs OTHER/dist] [--no-lockfile]
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { ROOT, percentile, runWorkers, scratch, table } from './lib.mjs';

const opt = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const KS = opt('--k', '4').split(',').map(Number);
const ROUNDS = Number(opt('--rounds', '5'));
const SECONDS = Number(opt('--seconds', '2'));
const KINDS = opt('--kinds', 'plain,async').split(',');
const VS = opt('--vs', '');
const LOCKFILE = !process.argv.includes('--no-lockfile');
const DIST = join(ROOT, 'dist');
const WORKER = join(ROOT, 'bench', 'gate-worker.mjs');

// The locks a round runs: flock, then each lanes kind of this build (and of --vs, for an A/B).
const builds = [{ tag: 'lanes', dist: DIST }, ...(VS ? [{ tag: 'other', dist: resolve(VS) }] : [])];
const lanesLocks = builds.flatMap((b) => KINDS.map((kind) => ({ name: `${b.tag} ${kind}`, kind, dist: b.dist })));

async function lanesRun(lock, k) {
  const { openLanes } = await import(join(lock.dist, 'index.js'));
  const store = join(scratch('lanes-gate-'), 'lanes.db');
  const setup = await openLanes({ store, session: null, notice: false });
  const { id } = await setup.sessions.start({ pid: process.pid, label: 'gate-bench' });
  const results = await runWorkers(
    Array.from({ length: k }, (_, w) => [
      process.execPath,
      [WORKER, lock.kind, String(w), String(SECONDS), store, id, lock.dist],
    ]),
    process.env,
  );
  const final = await setup.state.get(id);
  await setup.close();
  return { results, final };
}

/** The raw SQLite floor: a store file holding only the counter, one write transaction per operation. */
async function sqliteRun(k) {
  const { DatabaseSync } = await import('node:sqlite');
  const file = join(scratch('lanes-gate-'), 'floor.db');
  const db = new DatabaseSync(file);
  db.exec('PRAGMA journal_mode = WAL');
  db.exec(`CREATE TABLE counter (id INTEGER PRIMARY KEY, v TEXT NOT NULL); INSERT INTO counter VALUES (1, '{}')`);
  db.close();
  const results = await runWorkers(
    Array.from({ length: k }, (_, w) => [process.execPath, [WORKER, 'sqlite', String(w), String(SECONDS), file]]),
    process.env,
  );
  const check = new DatabaseSync(file, { readOnly: true });
  const final = JSON.parse(check.prepare('SELECT v FROM counter WHERE id = 1').get().v);
  check.close();
  return { results, final };
}

async function fileRun(kind, k) {
  const counter = join(scratch('lanes-gate-'), 'counter');
  writeFileSync(counter, '{}');
  const results = await runWorkers(
    Array.from({ length: k }, (_, w) =>
      kind === 'flock'
        ? ['python3', [join(ROOT, 'bench', 'gate-flock.py'), counter, String(w), String(SECONDS)]]
        : [process.execPath, [WORKER, 'lockfile', String(w), String(SECONDS), counter]],
    ),
    process.env,
  );
  return { results, final: JSON.parse(readFileSync(counter, 'utf8')) };
}

function summarize(name, { results, final }) {
  const start = Math.min(...results.map((r) => r.start));
  const end = Math.max(...results.map((r) => r.end));
  const waits = results.flatMap((r) => r.waits).sort((a, b) => a - b);
  const perWorker = results.map((r) => r.ops);
  const ops = perWorker.reduce((a, b) => a + b, 0);
  const cpuMs = results.reduce((a, r) => a + r.cpuMs, 0);
  return {
    name,
    ops,
    throughput: ops / ((end - start) / 1000),
    // The workers' CPU time: per operation (what the lock costs), and as a share of the run's wall
    // time (what the machine gave them: the others on it take the rest).
    cpuPerOp: (cpuMs * 1000) / ops,
    cpuShare: cpuMs / (end - start),
    handOvers: final?.hand ?? 0,
    p50: percentile(waits, 50),
    p99: percentile(waits, 99),
    longest: waits[waits.length - 1],
    workerMin: Math.min(...perWorker),
    workerMax: Math.max(...perWorker),
    ok: final?.n === ops,
    final: final?.n,
  };
}

/** The floor a lanes run is compared with: the mean of the flock runs just before and after it. */
function meanOf(a, b) {
  const mean = (f) => (f(a) + f(b)) / 2;
  return {
    throughput: mean((r) => r.throughput),
    longest: mean((r) => r.longest),
    cpuPerOp: mean((r) => r.cpuPerOp),
    cpuShare: mean((r) => r.cpuShare),
  };
}

const ms = (x) => x.toFixed(3);
const pct = (x) => (x < 0.1 ? `${(x * 100).toFixed(1)}%` : `${Math.round(x * 100)}%`);
function row(round, r, floor) {
  return [
    round,
    r.name,
    r.ops,
    Math.round(r.throughput),
    floor ? pct(r.throughput / floor.throughput) : '',
    r.handOvers,
    (r.ops / Math.max(1, r.handOvers)).toFixed(1),
    ms(r.p50),
    ms(r.p99),
    r.longest.toFixed(1),
    floor ? `${(r.longest / floor.longest).toFixed(2)}x` : '',
    `${r.workerMin}-${r.workerMax}`,
    r.cpuPerOp.toFixed(1),
    `${Math.round(r.cpuShare * 100)}%`,
    r.ok ? 'ok' : `WRONG (${r.final})`,
  ];
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const range = (xs, f) => `median ${f(median(xs))}, ${f(Math.min(...xs))}-${f(Math.max(...xs))}`;

const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
console.log(`node ${process.version}; ${SECONDS} s per run; load average at start: ${load()}`);
let wrong = false;
for (const k of KS) {
  const rows = [];
  const byLock = Object.fromEntries(lanesLocks.map((l) => [l.name, []]));
  let lastFlock;
  for (let round = 1; round <= ROUNDS; round++) {
    // Each lanes run between two flock runs, and compared with their mean: the machine's drift
    // between runs hits both sides alike. The order of the lanes runs turns every other round.
    const order = round % 2 ? lanesLocks : [...lanesLocks].reverse();
    let before = summarize('flock', await fileRun('flock', k));
    rows.push(row(round, before, null));
    for (const lock of order) {
      const r = summarize(lock.name, await lanesRun(lock, k));
      const after = summarize('flock', await fileRun('flock', k));
      const floor = meanOf(before, after);
      rows.push(row(round, r, floor), row(round, after, null));
      byLock[lock.name].push({
        share: r.throughput / floor.throughput,
        wait: r.longest / floor.longest,
        cpu: floor.cpuPerOp / r.cpuPerOp,
        given: r.cpuShare / floor.cpuShare,
        r,
      });
      wrong ||= !r.ok || !after.ok;
      before = lastFlock = after;
    }
  }
  // One run of the floor under lanes: how fast, and how fair, SQLite's own write lock is.
  let floorSqlite = null;
  try {
    floorSqlite = summarize('sqlite (raw, no gate)', await sqliteRun(k));
  } catch (e) {
    console.log(`(the raw SQLite floor did not run: ${e.message})`);
  }
  if (floorSqlite) {
    const after = summarize('flock', await fileRun('flock', k));
    const floor = meanOf(lastFlock, after);
    rows.push(row('-', floorSqlite, floor), row('-', after, null));
    wrong ||= !floorSqlite.ok || !after.ok;
    floorSqlite.vs = floor;
    lastFlock = after;
  }
  let lockfile;
  if (LOCKFILE) {
    lockfile = summarize('proper-lockfile', await fileRun('lockfile', k));
    rows.push(row('-', lockfile, lastFlock));
    wrong ||= !lockfile.ok;
  }
  console.log(`\nK = ${k}\n`);
  console.log(
    table(
      [
        'round',
        'lock',
        'ops',
        'ops/s',
        'of flock',
        'hand-overs',
        'ops/hand-over',
        'wait p50 ms',
        'p99 ms',
        'longest ms',
        'vs flock',
        'ops per worker',
        'CPU us/op',
        'CPU',
        'counter',
      ],
      rows,
    ),
  );
  console.log('');
  for (const [name, xs] of Object.entries(byLock)) {
    const shares = xs.map((x) => x.share);
    const waits = xs.map((x) => x.wait);
    const met = xs.filter((x) => x.share >= 0.6 && x.wait <= 2).length;
    console.log(
      `K=${k} ${name}: ${shares.map(pct).join(', ')} of flock (${range(shares, pct)}), >= 60% in ${shares.filter((s) => s >= 0.6).length}/${xs.length}; ` +
        `longest wait ${waits.map((w) => `${w.toFixed(2)}x`).join(', ')} flock's, <= 2x in ${waits.filter((w) => w <= 2).length}/${xs.length}; both in ${met}/${xs.length}`,
    );
    const cpus = xs.map((x) => x.cpu);
    const given = xs.map((x) => x.given);
    console.log(
      `  operations per CPU second, of flock's: ${cpus.map(pct).join(', ')} (${range(cpus, pct)}); ` +
        `the CPU its workers got, of flock's workers': ${given.map(pct).join(', ')} (${range(given, pct)})`,
    );
  }
  if (floorSqlite) {
    const plain = byLock[lanesLocks.find((l) => l.kind === 'plain')?.name]?.map((x) => x.r.throughput) ?? [];
    console.log(
      `K=${k} raw SQLite (one write transaction per operation, no gate): ${pct(floorSqlite.throughput / floorSqlite.vs.throughput)} of flock, ` +
        `longest wait ${(floorSqlite.longest / floorSqlite.vs.longest).toFixed(2)}x flock's, ${floorSqlite.handOvers} hand-overs` +
        (plain.length ? `; lanes plain's median throughput ${pct(median(plain) / floorSqlite.throughput)} of it` : ''),
    );
  }
  if (lockfile) {
    const first = byLock[lanesLocks[0].name].at(-1).r;
    console.log(
      `K=${k} ${first.name} / proper-lockfile: ${(first.throughput / lockfile.throughput).toFixed(1)}x (target >= 20x)`,
    );
  }
}

// Uncontended, in-process: the cost of a mutate() when nobody else wants the gate.
const { openLanes } = await import(join(DIST, 'index.js'));
const lanes = await openLanes({ store: join(scratch('lanes-gate-'), 'lanes.db'), session: null, notice: false });
const { id } = await lanes.sessions.start({ pid: process.pid, label: 'uncontended' });
for (const [kind, fn] of [
  ['plain', (s) => ({ n: (s?.n ?? 0) + 1 })],
  ['async', async (s) => ({ n: (s?.n ?? 0) + 1 })],
]) {
  const lat = [];
  for (let i = 0; i < 5000; i++) {
    const t = performance.now();
    await lanes.state.mutate(id, fn);
    lat.push(performance.now() - t);
  }
  lat.sort((a, b) => a - b);
  console.log(
    `uncontended in-process mutate(), ${kind}: p50 ${ms(percentile(lat, 50))} ms, p99 ${ms(percentile(lat, 99))} ms (5,000 calls; target p50 <= 0.2 ms)`,
  );
}
await lanes.close();
console.log(`load average at the end: ${load()}`);
if (wrong) console.log('FAIL: a final counter was wrong (lost increments)');
process.exitCode = wrong ? 1 : 0;
