// A Node client of bench/claims-server: one bare pg.Client running a script's statements per cycle
// (named prepared statements; $1 the client's number, $2 a resource drawn from 0..99), nothing of
// lanes. Same protocol as claims-worker.mjs: prints "ready", waits for "go", then one JSON line.
// Usage: node claims-server-worker.mjs URL SCRIPT.json CYCLES CLIENT-NUMBER
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { readyThenGo } from './ready-go.mjs';

const [url, script, n, clientNo] = process.argv.slice(2);
const N = Number(n);
const client = Number(clientNo);
const statements = JSON.parse(readFileSync(script, 'utf8')).map((text, i) => ({
  name: `s${i}`,
  text,
  // Only the parameters the statement names (a bind with more is refused).
  uses: [/\$1\b/.test(text), /\$2\b/.test(text)],
}));
const pg = createRequire(import.meta.url)('pg');
const db = new pg.Client({ connectionString: url });
await db.connect();
await readyThenGo();
const now = () => performance.timeOrigin + performance.now();
const start = now();
const cpu0 = process.cpuUsage();
for (let i = 0; i < N; i++) {
  const r = Math.floor(Math.random() * 100);
  for (const s of statements)
    await db.query({ name: s.name, text: s.text, values: [client, r].filter((_, k) => s.uses[k]) });
}
const end = now();
const { user, system } = process.cpuUsage(cpu0);
await db.end();
process.stdout.write(JSON.stringify({ start, end, cpuUs: user + system }) + '\n');
