// The floors of bench/claims on PostgreSQL: one client doing what any claim/release cycle needs at
// the least, two round trips through the same driver (node-postgres, prepared statements), and
// nothing of lanes. Mode `read`: a `SELECT 1` each. Mode `write`: a one-row durable write each (an
// upsert of this client's row, then its delete, in TABLE), no lock, no check, no journal.
// Between the two it makes and removes a marker file, as claims-worker.mjs does while it holds a
// resource (the bench's own check, not lanes' work: both sides of the ratio pay it; its own name,
// so it never collides). Same protocol as claims-worker.mjs: prints "ready", waits for "go", then
// one JSON line.
// Usage: node claims-floor-worker.mjs read|write URL CYCLES TABLE CLIENT-NUMBER MARKERS
import { closeSync, openSync, unlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { readyThenGo } from './ready-go.mjs';

const [mode, url, n, table, clientNo, markers] = process.argv.slice(2);
const marker = join(markers, `floor-${clientNo}`);
const N = Number(n);
const pg = createRequire(import.meta.url)('pg');
const u = new URL(url);
u.searchParams.delete('schema');
const client = new pg.Client({ connectionString: u.toString() });
await client.connect();
const row = Number(clientNo);
const [claim, release] =
  mode === 'write'
    ? [
        {
          name: 'claim',
          text: `INSERT INTO ${table} (id, v) VALUES ($1, 1) ON CONFLICT (id) DO UPDATE SET v = ${table}.v + 1`,
          values: [row],
        },
        { name: 'release', text: `DELETE FROM ${table} WHERE id = $1`, values: [row] },
      ]
    : [
        { name: 'claim', text: 'SELECT 1 AS r' },
        { name: 'release', text: 'SELECT 1 AS r' },
      ];
await readyThenGo();
const now = () => performance.timeOrigin + performance.now();
const lat = [];
let violations = 0;
const start = now();
const cpu0 = process.cpuUsage();
for (let i = 0; i < N; i++) {
  const t = now();
  await client.query(claim);
  try {
    closeSync(openSync(marker, 'wx'));
  } catch {
    violations++;
  }
  try {
    unlinkSync(marker);
  } catch {
    violations++;
  }
  await client.query(release);
  lat.push(now() - t);
}
const end = now();
const { user, system } = process.cpuUsage(cpu0);
await client.end();
process.stdout.write(JSON.stringify({ start, end, lat, grants: [], violations, cpuUs: user + system }) + '\n');
