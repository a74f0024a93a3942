// One client of bench/claims: N claim/release cycles on random resources among R, through the
// library (the store from --store). While it holds a resource it creates a marker file with
// O_EXCL, so a second holder anywhere would fail to create it and be counted.
// Prints "ready", waits for "go", then one JSON line: { start, end, lat, grants: [[resource, token]], violations, cpuUs }.
import { closeSync, openSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { readyThenGo } from './ready-go.mjs';
// LANES_BENCH_DIST: another build to measure (an A/B in one run); default this checkout's dist/.
const { openLanes } = await import(
  process.env.LANES_BENCH_DIST ? `${process.env.LANES_BENCH_DIST}/index.js` : '../dist/index.js'
);

const [store, n, r, markers, seedText] = process.argv.slice(2);
const N = Number(n);
const R = Number(r);
let seed = Number(seedText);
const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const lanes0 = await openLanes({ store, session: null, notice: false });
const { id } = await lanes0.sessions.start({ pid: process.pid, label: `bench-${process.pid}` });
await lanes0.close();
const lanes = await openLanes({ store, session: id, notice: false });
await readyThenGo();
const now = () => performance.timeOrigin + performance.now();
const lat = [];
const grants = [];
let violations = 0;
const start = now();
const cpu0 = process.cpuUsage();
for (let i = 0; i < N; i++) {
  const res = `lock:r${Math.floor(rand() * R)}`;
  const t = now();
  const [g] = await lanes.claims.claim([res], { wait: true, timeoutMs: 120_000 });
  const marker = join(markers, res.replace(':', '-'));
  try {
    closeSync(openSync(marker, 'wx'));
  } catch {
    violations++;
  }
  grants.push([res, g.token]);
  try {
    unlinkSync(marker);
  } catch {
    violations++;
  }
  await lanes.claims.release([res]);
  lat.push(now() - t);
}
const end = now();
// The client's own CPU over the timed loop only (start-up excluded), to tell client from server cost.
const { user, system } = process.cpuUsage(cpu0);
await lanes.sessions.end(id, 'bench done');
await lanes.close();
process.stdout.write(JSON.stringify({ start, end, lat, grants, violations, cpuUs: user + system }) + '\n');
