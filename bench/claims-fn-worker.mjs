// The third floor of bench/claims on PostgreSQL: one client doing lanes' two calls per cycle,
// lanes_claim() and lanes_release(), with the arguments lanes passes (named prepared statements,
// the same texts), through a bare pg.Client, and nothing else of lanes' client: no library, no
// pool, no judge. A refusal is retried on the library's schedule for claims (services/wait.ts:
// 1, 1, 2, 3, 5, 8 then 12 ms, each + up to half again). So lanes' share of this floor is what
// its client code costs; this floor's share of the write floor is what the server functions cost.
// Same protocol and invariant checks as claims-worker.mjs (a marker file held with O_EXCL, the
// tokens granted). The session is registered through the library before "ready" (not timed).
// Usage: node claims-fn-worker.mjs URL CYCLES RESOURCES MARKERS CLIENT-NUMBER
import { createRequire } from 'node:module';
import { closeSync, openSync, unlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { readyThenGo } from './ready-go.mjs';

const { openLanes } = await import(
  process.env.LANES_BENCH_DIST ? `${process.env.LANES_BENCH_DIST}/index.js` : '../dist/index.js'
);
const [store, n, r, markers, seedText] = process.argv.slice(2);
const N = Number(n);
const R = Number(r);
let seed = Number(seedText);
const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;

// The session, and the scope lanes gives a lock: claim (its grant says), through the library.
const lanes0 = await openLanes({ store, session: null, notice: false });
const { id } = await lanes0.sessions.start({ pid: process.pid, label: `bench-fn-${process.pid}` });
const [probe] = await lanes0.claims.claim([`lock:probe-${seedText}`], { session: id });
await lanes0.claims.release([`lock:probe-${seedText}`], { session: id });
await lanes0.close();
const scope = probe.ref.scope;

const u = new URL(store);
const schema = u.searchParams.get('schema');
u.searchParams.delete('schema');
const pg = createRequire(import.meta.url)('pg');
const client = new pg.Client({ connectionString: u.toString() });
await client.connect();
const host = process.env.LANES_HOST_ID?.trim() || hostname();
// The statements' texts as claims.ts builds them (the names differ: each text is prepared once here).
const claimText = `SELECT "${schema}".lanes_claim($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) AS r`;
const releaseText = `SELECT coalesce(jsonb_agg(c), '[]') AS r FROM "${schema}".lanes_release($1, $2, $3, $4, $5, $6) AS c`;
const STEPS = [1, 1, 2, 3, 5, 8];
const sleep = (ms) => new Promise((res) => setTimeout(res, ms + Math.random() * ms * 0.5));

await readyThenGo();
const now = () => performance.timeOrigin + performance.now();
const lat = [];
const grants = [];
let violations = 0;
const start = now();
const cpu0 = process.cpuUsage();
for (let i = 0; i < N; i++) {
  const name = `r${Math.floor(rand() * R)}`;
  const res = `lock:${name}`;
  const t = now();
  let token = 0;
  for (let attempt = 0; ; attempt++) {
    const { rows } = await client.query({
      name: 'claim',
      text: claimText,
      values: [
        id,
        [scope],
        ['lock'],
        [name],
        [`lanes:claims:${schema}:${scope}:lock:${name}`],
        '5000',
        host,
        null,
        null,
        null,
        null,
        null,
      ],
    });
    const got = rows[0].r;
    if (got.status === 'granted') {
      token = Number(got.tokens[0]);
      break;
    }
    if (got.status !== 'conflict') throw new Error(`lanes_claim: ${got.status}`);
    await sleep(STEPS[attempt] ?? 12);
  }
  const marker = join(markers, res.replace(':', '-'));
  try {
    closeSync(openSync(marker, 'wx'));
  } catch {
    violations++;
  }
  grants.push([res, token]);
  try {
    unlinkSync(marker);
  } catch {
    violations++;
  }
  await client.query({ name: 'release', text: releaseText, values: [id, [scope], ['lock'], [name], '5000', host] });
  lat.push(now() - t);
}
const end = now();
const { user, system } = process.cpuUsage(cpu0);
await client.end();
const lanes = await openLanes({ store, session: id, notice: false });
await lanes.sessions.end(id, 'bench done');
await lanes.close();
process.stdout.write(JSON.stringify({ start, end, lat, grants, violations, cpuUs: user + system }) + '\n');
