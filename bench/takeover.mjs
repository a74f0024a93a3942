// bench/takeover: how soon a session's state gate is free again after its holder is SIGKILLed
// mid-mutate (the speed the kill-storm, state and pg-cuts tests used to assert with wall-clock
// limits; they now only bound hangs). Per round: a holder process takes the gate and waits, this
// process starts a mutate that has to wait, the holder is SIGKILLed, and the time from the kill to
// the waiter's mutate returning is measured. Baseline in the same run: an uncontended async mutate.
// With a PostgreSQL server (--pg URL, default $LANES_TEST_PG_URL) the same on it.
// Target: the waiter in well under a second (the gate's poll is 50 ms of trust, then a liveness read).
// Usage: node bench/takeover.mjs [--rounds 20] [--pg postgres://…]
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { openLanes } from '../dist/index.js';
import { ROOT, percentile, scratch, table } from './lib.mjs';

const opt = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const ROUNDS = Number(opt('--rounds', 20));
const PG = opt('--pg', process.env.LANES_TEST_PG_URL ?? '');
const HOLDER = join(ROOT, 'test', 'fixtures', 'state-holder.mjs');

function holder(store, session) {
  const env = { ...process.env, LANES_STORE: store, LANES_SESSION: session };
  const proc = spawn(process.execPath, [HOLDER, session, '{"v":"never"}'], { env, stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise((r) => proc.once('exit', r));
  const holding = new Promise((resolve) => {
    let out = '';
    proc.stdout.on('data', (d) => {
      out += d;
      if (out.includes('holding')) resolve();
    });
  });
  return { proc, exited, holding };
}

async function measure(store, label) {
  const lib = await openLanes({ store, notice: false, session: null, cwd: scratch('lanes-bench-to-cwd-') });
  const { id } = await lib.sessions.start({ pid: process.pid, label: 'takeover' });
  await lib.state.mutate(id, () => ({ v: 0 }));
  const base = [];
  const waits = [];
  for (let i = 0; i < ROUNDS; i++) {
    let t = performance.now();
    await lib.state.mutate(id, async (c) => ({ ...c, n: i }));
    base.push(performance.now() - t);
    const h = holder(store, id);
    await h.holding;
    const waiting = lib.state.mutate(id, async (c) => ({ ...c, after: i }), { timeoutMs: 30_000 });
    t = performance.now();
    h.proc.kill('SIGKILL');
    await waiting;
    waits.push(performance.now() - t);
    await h.exited;
  }
  await lib.close({ heartbeat: false });
  const s = (xs) => [...xs].sort((a, b) => a - b);
  const [b, w] = [s(base), s(waits)];
  return [
    label,
    percentile(b, 50).toFixed(1),
    percentile(w, 50).toFixed(1),
    w.at(-1).toFixed(1),
    (percentile(w, 50) / percentile(b, 50)).toFixed(1),
  ];
}

const rows = [await measure(join(scratch('lanes-bench-to-'), 'lanes.db'), 'SQLite')];
if (PG) {
  const u = new URL(PG);
  u.searchParams.set('schema', `bench_takeover_${process.pid}`);
  rows.push(await measure(u.toString(), 'PostgreSQL'));
}
if (PG) {
  const { Client } = (await import('node:module')).createRequire(import.meta.url)('pg');
  const c = new Client({ connectionString: PG });
  await c.connect();
  await c.query(`DROP SCHEMA IF EXISTS bench_takeover_${process.pid} CASCADE`);
  await c.end();
}
console.log(`gate free again after a SIGKILLed holder (${ROUNDS} rounds)\n`);
console.log(table(['store', 'uncontended mutate p50 ms', 'waiter after kill p50 ms', 'max ms', 'ratio p50'], rows));
