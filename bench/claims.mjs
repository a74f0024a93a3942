// bench/claims: 16 concurrent clients x 1,000 claim/release cycles on 100 resources, on
// PostgreSQL and on SQLite in the same run: throughput, p50/p99 of one cycle, the clients' own CPU,
// and the invariants (never two holders at once; per resource, the tokens granted are exactly 1..k,
// each once). On PostgreSQL also two floors in the same run, as many clients without lanes
// (claims-floor-worker.mjs): two `SELECT 1` round trips per cycle, and two one-row durable writes
// per cycle; lanes' figure is printed as a share of each.
// Usage: node bench/claims.mjs [--clients 16] [--cycles 1000] [--resources 100] [--pg URL] [--stores sqlite,pg]
//   [--dist DIR] (another build's dist/, e.g. an older checkout's, for an A/B against this one)
//   [--no-floors] (skip PostgreSQL's two floors)
// (--pg defaults to $LANES_TEST_PG_URL; without a server only SQLite runs, and it says so).
import { createRequire } from 'node:module';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, percentile, runWorkers, scratch, table } from './lib.mjs';

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
const base = scratch('lanes-bench-claims-');
const env = { ...process.env, LANES_HOME: join(base, 'home') };
delete env.LANES_SESSION;
delete env.LANES_STORE;
if (DIST) env.LANES_BENCH_DIST = DIST;

async function pgStore() {
  const schema = `bench_${process.pid}`;
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
  const makeFloorTable = () => sql(`CREATE TABLE ${floorTable} (id int PRIMARY KEY, v int NOT NULL)`);
  return { url: u.toString(), drop, floorTable, makeFloorTable };
}

async function run(name, store, floor) {
  const markers = join(base, `markers-${name}`);
  mkdirSync(markers);
  const worker = join(ROOT, 'bench', floor ? 'claims-floor-worker.mjs' : 'claims-worker.mjs');
  const args = (i) =>
    floor
      ? [floor.mode, store, String(CYCLES), floor.table, String(i + 1)]
      : [store, String(CYCLES), String(RESOURCES), markers, String(i + 1)];
  const results = await runWorkers(
    Array.from({ length: CLIENTS }, (_, i) => [process.execPath, [worker, ...args(i)]]),
    env,
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
  return [
    name,
    cycles,
    (cycles / ((end - start) / 1000)).toFixed(0),
    percentile(lat, 50).toFixed(2),
    percentile(lat, 99).toFixed(2),
    String(violations),
    String(tokenFaults),
    clientCpu.toFixed(2),
  ];
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
}
console.log(
  table(
    ['store', 'cycles', 'cycles/s', 'p50 ms', 'p99 ms', 'two holders', 'token faults', 'client CPU ms/cycle'],
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
