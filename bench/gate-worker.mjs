// One contender of bench/gate: read-increment-write cycles of a shared counter under a lock, for a
// fixed time. The counter also keeps which worker wrote last and how many times the lock passed
// from one worker to another (a hand-over), both updated inside the critical section, so the count
// is exact. Modes:
//   plain     lanes' state.mutate() with a plain function (SQLite's one-step path)
//   async     lanes' state.mutate() with a function declared async (the gate path)
//   sqlite    a raw SQLite write transaction per operation (the floor under lanes' gate)
//   lockfile  npm proper-lockfile around a counter file
// Prints "ready", waits for "go", then one JSON line:
//   { start, end, ops, cpuMs (this process' CPU time in the loop), waits: [ms per op, from the call
//   to entering the critical section] }.
// Usage: gate-worker.mjs MODE WORKER SECONDS TARGET [SESSION] [DIST]
import { readFileSync, writeFileSync } from 'node:fs';
import { readyThenGo } from './ready-go.mjs';

const [mode, worker, seconds, target, session, dist = '../dist'] = process.argv.slice(2);
const me = Number(worker);
const now = () => performance.timeOrigin + performance.now();
let entered = 0;
// The critical section itself, the same in every mode: +1, and a hand-over when another worker wrote last.
const bump = (s) => {
  entered = now();
  return { n: (s?.n ?? 0) + 1, last: me, hand: (s?.hand ?? 0) + (s?.last === me ? 0 : 1) };
};
let op;
let done = async () => {};
if (mode === 'plain' || mode === 'async') {
  const { openLanes } = await import(new URL(`${dist}/index.js`, import.meta.url).href);
  const lanes = await openLanes({ store: target, session, notice: false });
  const fn = mode === 'plain' ? bump : async (s) => bump(s);
  op = () => lanes.state.mutate(session, fn);
  done = () => lanes.close();
} else if (mode === 'sqlite') {
  // The floor under lanes: one SQLite write transaction per operation on a raw connection (WAL,
  // synchronous = NORMAL, SQLite's own busy handler with lanes' 5 s bound), no gate, no line.
  const { DatabaseSync } = await import('node:sqlite');
  const db = new DatabaseSync(target, { timeout: 5000 });
  db.exec('PRAGMA synchronous = NORMAL');
  const get = db.prepare('SELECT v FROM counter WHERE id = 1');
  const put = db.prepare('UPDATE counter SET v = ? WHERE id = 1');
  const step = () => {
    db.exec('BEGIN IMMEDIATE');
    try {
      put.run(JSON.stringify(bump(JSON.parse(get.get().v))));
      db.exec('COMMIT');
    } catch (e) {
      db.exec('ROLLBACK');
      throw e;
    }
  };
  op = async () => step();
  done = async () => db.close();
} else if (mode === 'lockfile') {
  const lockfile = (await import('proper-lockfile')).default;
  // Tight retries: its defaults (exponential from 1 s) would only make the baseline look worse.
  const opts = { retries: { retries: 100000, factor: 1, minTimeout: 1, maxTimeout: 5 }, stale: 10000 };
  op = async () => {
    const release = await lockfile.lock(target, opts);
    writeFileSync(target, JSON.stringify(bump(JSON.parse(readFileSync(target, 'utf8')))));
    await release();
  };
} else throw new Error(`unknown mode ${mode}`);

await readyThenGo();
const waits = [];
const cpu0 = process.cpuUsage();
const start = now();
const until = start + Number(seconds) * 1000;
for (let t = start; t < until; t = now()) {
  await op();
  waits.push(entered - t);
}
const end = now();
const { user, system } = process.cpuUsage(cpu0);
await done();
process.stdout.write(JSON.stringify({ start, end, ops: waits.length, cpuMs: (user + system) / 1000, waits }) + '\n');
