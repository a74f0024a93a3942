// bench/claims: 16 concurrent clients x 1,000 claim/release cycles on 100 resources, on
// PostgreSQL and on SQLite in the same run: throughput, p50/p99 of one cycle, the clients' own CPU,
// and the invariants (never two holders at once; per resource, the tokens granted are exactly 1..k,
// each once). On PostgreSQL also two floors in the same run, as many clients without lanes
// (claims-floor-worker.mjs): two `SELECT 1` round trips per cycle, and two one-row durable writes
// per cycle (each with the marker file the lanes workers make, so the harness costs both sides
// alike); and a third, lanes' own two calls per cycle (lanes_claim, lanes_release) through a bare
// pg.Client (claims-fn-worker.mjs): the floor lanes' client code can reach on the same server
// functions. lanes' figure is printed as a share of each.
// Usage: node bench/claims.mjs [--clients 16] [--cycles 1000] [--resources 100] [--pg URL] [--stores sqlite,pg]
//   [--dist DIR] (another build's dist/, e.g. an older checkout's, for an A/B against this one)
//   [--no-floors] (skip PostgreSQL's three floors)
//   [--rounds K --ab OLD/dist] (PostgreSQL only: K rounds, each this build, OLD's and the write floor
//   back to back, so both builds' shares of the floor come from the same minutes of a noisy machine;
//   then the function floor, lanes' two calls through a bare client; per round and the medians)
// (--pg defaults to $LANES_TEST_PG_URL; without a server only SQLite runs, and it says so).
import { createRequire } from 'node:module';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, percentile, postgresCpuMs, runWorkers, scratch, table } from './lib.mjs';

const opt = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const CLIENTS = Number(opt('--clients', 16));
const CYCLES = Number(opt('--cycles', 1000));
const RESOURCES = Number(opt('--resources', 100));
const PG = opt('--pg', process.env.LANES_TEST_PG_URL ?? '');
const STORES = opt('--stores', 'sqlite,pg').split(',');
const DIST = opt('--dist', '');
const FLOORS = !process.argv.includes('--no-floors');
const ROUNDS = Number(opt('--rounds', 0));
const AB = opt('--ab', '');
const base = scratch('lanes-bench-claims-');
const env = { ...process.env, LANES_HOME: join(base, 'home') };
delete env.LANES_SESSION;
delete env.LANES_STORE;
if (DIST) env.LANES_BENCH_DIST = DIST;

async function pgStore(n = 0) {
  const schema = `bench_${process.pid}${n ? `_${n}` : ''}`;
  const u = new URL(PG);
  u.searchParams.set('schema', schema);
  const pg = createRequire(import.meta.url)('pg');
  const sql = async (text) => {
    const c = new pg.Client({ connectionString: PG });
    await c.connect();
    try {
      await c.query(text);
    } finally {
      await c.end();
    }
  };
  const drop = () => sql(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await drop();
  // The write floor's table: one row per client, in the bench's own schema (dropped with it).
  const floorTable = `"${schema}".floor_rows`;
  const makeFloorTable = () =>
    sql(`CREATE SCHEMA IF NOT EXISTS "${schema}"; CREATE TABLE ${floorTable} (id int PRIMARY KEY, v int NOT NULL)`);
  return { url: u.toString(), drop, floorTable, makeFloorTable };
}

let runs = 0;
async function run(name, store, floor, dist) {
  const markers = join(base, `markers-${++runs}`);
  mkdirSync(markers);
  const fn = floor?.mode === 'fn';
  const worker = join(
    ROOT,
    'bench',
    fn ? 'claims-fn-worker.mjs' : floor ? 'claims-floor-worker.mjs' : 'claims-worker.mjs',
  );
  const args = (i) =>
    floor && !fn
      ? [floor.mode, store, String(CYCLES), floor.table, String(i + 1), markers]
      : [store, String(CYCLES), String(RESOURCES), markers, String(i + 1)];
  // The server's CPU from the workers' start (after their set-up) to their exit, when it runs on
  // this machine ('' otherwise: SQLite, a remote server); whatever else it serves meanwhile counts too.
  const local = store.startsWith('postgres') && /@(127\.0\.0\.1|localhost|\[::1\])[:/]/.test(store);
  let server0 = null;
  const results = await runWorkers(
    Array.from({ length: CLIENTS }, (_, i) => [process.execPath, [worker, ...args(i)]]),
    dist === undefined ? env : { ...env, LANES_BENCH_DIST: dist },
    () => {
      if (local) server0 = postgresCpuMs();
    },
  );
  const start = Math.min(...results.map((r) => r.start));
  const end = Math.max(...results.map((r) => r.end));
  const lat = results.flatMap((r) => r.lat).sort((a, b) => a - b);
  const violations = results.reduce((n, r) => n + r.violations, 0);
  const byRes = new Map();
  for (const r of results)
    for (const [res, token] of r.grants) (byRes.get(res) ?? byRes.set(res, []).get(res)).push(token);
  let tokenFaults = 0;
  for (const tokens of byRes.values()) {
    tokens.sort((a, b) => a - b);
    tokens.forEach((t, i) => {
      if (t !== i + 1) tokenFaults++;
    });
  }
  // Within one client, tokens of one resource only grow.
  for (const r of results) {
    const last = new Map();
    for (const [res, token] of r.grants) {
      if ((last.get(res) ?? 0) >= token) tokenFaults++;
      last.set(res, token);
    }
  }
  const cycles = CLIENTS * CYCLES;
  const clientCpu = results.reduce((n, r) => n + r.cpuUs, 0) / 1000 / cycles;
  // The backends' time is theirs once they exit (the postmaster reaps them): wait a moment for it.
  if (server0 !== null) await new Promise((r) => setTimeout(r, 300));
  const server1 = server0 !== null ? postgresCpuMs() : null;
  const serverCpu = server0 !== null && server1 !== null ? ((server1 - server0) / cycles).toFixed(2) : '';
  return [
    name,
    cycles,
    (cycles / ((end - start) / 1000)).toFixed(0),
    percentile(lat, 50).toFixed(2),
    percentile(lat, 99).toFixed(2),
    String(violations),
    String(tokenFaults),
    clientCpu.toFixed(2),
    serverCpu,
  ];
}

if (ROUNDS > 0) {
  if (!PG || !AB) throw new Error('--rounds needs --ab OLD/dist and a PostgreSQL URL');
  await abRounds();
  process.exit(process.exitCode ?? 0);
}

/** --rounds K --ab OLD: per round, this build, OLD's (each in a schema of its own) and the write floor. */
async function abRounds() {
  const shares = { new: [], old: [] };
  const fnShares = { new: [], old: [], floor: [] };
  const head = [
    'round',
    'build',
    'cycles/s',
    'p50 ms',
    'two holders',
    'token faults',
    'client CPU ms/cycle',
    'server CPU ms/cycle',
    'share of floor',
    'share of fn floor',
  ];
  const out = [];
  for (let r = 1; r <= ROUNDS; r++) {
    const load = (await import('node:os')).loadavg()[0].toFixed(1);
    const order = r % 2 ? ['new', 'old'] : ['old', 'new'];
    const got = {};
    for (const which of order) {
      const st = await pgStore(r * 10 + (which === 'new' ? 1 : 2));
      try {
        got[which] = await run(`lanes ${which}`, st.url, undefined, which === 'new' ? '' : AB);
      } finally {
        await st.drop();
      }
    }
    const st = await pgStore(r * 10 + 3);
    let floor;
    try {
      await st.makeFloorTable();
      floor = await run('floor', st.url, { mode: 'write', table: st.floorTable });
    } finally {
      await st.drop();
    }
    // The function floor: lanes' own two calls through a bare client (a store of its own).
    const fst = await pgStore(r * 10 + 4);
    let fnFloor;
    try {
      fnFloor = await run('fn floor', fst.url, { mode: 'fn' });
    } finally {
      await fst.drop();
    }
    if (fnFloor[5] !== '0' || fnFloor[6] !== '0') process.exitCode = 1;
    fnShares.floor.push(Number(fnFloor[2]) / Number(floor[2]));
    for (const which of ['new', 'old']) {
      const g = got[which];
      const share = Number(g[2]) / Number(floor[2]);
      shares[which].push(share);
      fnShares[which].push(Number(g[2]) / Number(fnFloor[2]));
      if (g[5] !== '0' || g[6] !== '0') process.exitCode = 1;
      out.push([
        `${r} (load ${load})`,
        which === 'new' ? 'this' : 'old',
        g[2],
        g[3],
        g[5],
        g[6],
        g[7],
        g[8],
        `${(100 * share).toFixed(0)}%`,
        `${(100 * fnShares[which].at(-1)).toFixed(0)}%`,
      ]);
    }
    out.push([`${r}`, 'floor: 2 x 1-row write', floor[2], floor[3], '', '', floor[7], floor[8], '', '']);
    out.push([
      `${r}`,
      'floor: lanes_claim + lanes_release, bare client',
      fnFloor[2],
      fnFloor[3],
      fnFloor[5],
      fnFloor[6],
      fnFloor[7],
      fnFloor[8],
      `${(100 * fnShares.floor.at(-1)).toFixed(0)}%`,
      '',
    ]);
  }
  console.log(table(head, out));
  const median = (a) => [...a].sort((x, y) => x - y)[Math.floor((a.length - 1) / 2)];
  const pct = (x) => `${(100 * x).toFixed(0)}%`;
  console.log(
    `${CLIENTS} clients x ${CYCLES} cycles on ${RESOURCES} resources, ${ROUNDS} rounds: this build ${shares.new.map(pct).join(' ')} of the write floor (median ${pct(median(shares.new))}, >= 50% in ${shares.new.filter((x) => x >= 0.5).length}), old ${shares.old.map(pct).join(' ')} (median ${pct(median(shares.old))}); this/old per round ${shares.new.map((x, i) => (x / shares.old[i]).toFixed(2)).join(' ')}`,
  );
  console.log(
    `of the function floor (lanes' two calls, bare client): this build ${fnShares.new.map(pct).join(' ')} (median ${pct(median(fnShares.new))}), old ${fnShares.old.map(pct).join(' ')} (median ${pct(median(fnShares.old))}); the function floor is ${fnShares.floor.map(pct).join(' ')} of the write floor (median ${pct(median(fnShares.floor))})`,
  );
}

const rows = STORES.includes('sqlite') ? [await run('SQLite', join(base, 'lanes.db'))] : [];
if (PG && STORES.includes('pg')) {
  const { url, drop, floorTable, makeFloorTable } = await pgStore();
  try {
    rows.push(await run('PostgreSQL', url));
    if (FLOORS) {
      await makeFloorTable();
      rows.push(await run('PG floor: 2 x SELECT 1', url, { mode: 'read', table: floorTable }));
      rows.push(await run('PG floor: 2 x 1-row write', url, { mode: 'write', table: floorTable }));
    }
  } finally {
    await drop();
  }
  // The function floor in a store of its own (its tokens start at 1 again).
  if (FLOORS) {
    const fst = await pgStore(1);
    try {
      rows.push(await run('PG floor: lanes_claim + lanes_release, bare client', fst.url, { mode: 'fn' }));
    } finally {
      await fst.drop();
    }
  }
}
console.log(
  table(
    [
      'store',
      'cycles',
      'cycles/s',
      'p50 ms',
      'p99 ms',
      'two holders',
      'token faults',
      'client CPU ms/cycle',
      'server CPU ms/cycle',
    ],
    rows,
  ),
);
console.log(
  `${CLIENTS} clients x ${CYCLES} claim/release cycles on ${RESOURCES} resources, same run${PG ? '' : '; PostgreSQL skipped: no --pg URL and no LANES_TEST_PG_URL'}`,
);
const pgRow = rows.find((r) => r[0] === 'PostgreSQL');
const floors = rows.filter((r) => r[0].startsWith('PG floor'));
if (pgRow && floors.length)
  console.log(
    `PostgreSQL: lanes ${pgRow[2]} cycles/s = ${floors.map((f) => `${((100 * Number(pgRow[2])) / Number(f[2])).toFixed(0)}% of "${f[0].slice(10)}" (${f[2]})`).join(', ')}`,
  );
if (rows.some((r) => r[5] !== '0' || r[6] !== '0')) process.exitCode = 1;
