// One contender of bench/gate: N read-increment-write cycles of a shared counter under a lock.
//   lanes     lanes' state.mutate() on one session (the counter lives in the session's state)
//   lockfile  npm proper-lockfile around a counter file
// Prints "ready", waits for "go", then one JSON line: { start, end, lat: [ms per op] }.
import { readFileSync, writeFileSync } from 'node:fs';
import { readyThenGo } from './ready-go.mjs';

const [mode, n, target, session] = process.argv.slice(2);
const N = Number(n);
const now = () => performance.timeOrigin + performance.now();
let op;
let done = async () => {};
if (mode === 'lanes') {
  const { openLanes } = await import('../dist/index.js');
  const lanes = await openLanes({ store: target, session, notice: false });
  op = () => lanes.state.mutate(session, (s) => ({ n: (s?.n ?? 0) + 1 }));
  done = () => lanes.close();
} else if (mode === 'lockfile') {
  const lockfile = (await import('proper-lockfile')).default;
  // Tight retries: its defaults (exponential from 1 s) would only make the baseline look worse.
  const opts = { retries: { retries: 100000, factor: 1, minTimeout: 1, maxTimeout: 5 }, stale: 10000 };
  op = async () => {
    const release = await lockfile.lock(target, opts);
    writeFileSync(target, String(Number(readFileSync(target, 'utf8')) + 1));
    await release();
  };
} else throw new Error(`unknown mode ${mode}`);

await readyThenGo();
const lat = new Array(N);
const start = now();
for (let i = 0; i < N; i++) {
  const t = now();
  await op();
  lat[i] = now() - t;
}
const end = now();
await done();
process.stdout.write(JSON.stringify({ start, end, lat }) + '\n');
