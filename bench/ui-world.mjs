// What bench/ui-idle.mjs runs on: a repository, owner processes, stores filled through the store
// API (bench/scale-seed.ts, bench/ui-seed.ts), `lanes ui` of a given build, and the CPU of a window
// of time: the `lanes ui` process (utime+stime, and its children's: git) and, on PostgreSQL, the
// server backends serving it (found by their client ports), as % of one core.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ROOT, cpuOf, scratch, tcpPortsOf } from './lib.mjs';

const TICK = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
export const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

export function world() {
  const base = scratch('lanes-bench-ui-idle-');
  const env = { ...process.env, NO_COLOR: '1', LANES_GC_AFTER_MS: 'off' };
  for (const k of ['LANES_SESSION', 'LANES_STORE', 'LANES_HOME']) delete env[k];
  env.LANES_HOME = join(base, 'home');
  const sh = (cmd, cwd) =>
    execFileSync('bash', ['-c', cmd], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] }).toString();
  const repo = join(base, 'repo');
  mkdirSync(repo);
  sh('git init -q -b main && git config user.name b && git config user.email b@b && git config gc.auto 0', repo);
  for (let d = 0; d < 25; d++) {
    mkdirSync(join(repo, `pkg${d}`));
    for (let f = 0; f < 8; f++) writeFileSync(join(repo, `pkg${d}`, `f${f}.ts`), `export const v = ${f};\n`);
  }
  sh('git add -A && git commit -q -m files', repo);
  const commonDir = sh('git rev-parse --path-format=absolute --git-common-dir', repo).trim();
  return { base, env, repo, commonDir };
}

/** A process that only stays alive: the owner of sessions. */
export function sleeper() {
  const proc = spawn(process.execPath, [join(ROOT, 'test', 'fixtures', 'sleeper.mjs')], {
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  return new Promise((resolve) =>
    proc.stdout.once('data', (d) => resolve({ proc, pid: Number(/ready (\d+)/.exec(String(d))?.[1]) })),
  );
}

export function tsx(env, script, args) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'bench', script), ...args], {
    cwd: ROOT,
    env,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`${script}: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

export function startUi(env, cwd, cli, store) {
  const proc = spawn(process.execPath, [cli, 'ui', '--json', '--port', '0', '--store', store], { cwd, env });
  let out = '';
  let err = '';
  proc.stderr.on('data', (d) => (err += d));
  return new Promise((resolve, reject) => {
    proc.stdout.on('data', (d) => {
      out += d;
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve({ proc, ...JSON.parse(line) });
    });
    proc.on('close', (code) => reject(new Error(`lanes ui exited (${code}): ${err}`)));
  });
}

/** What the server did so far (/api/stats; a build without it: null). */
export async function stats(ui) {
  const r = await fetch(new URL('/api/stats', ui.url), {
    headers: { 'x-lanes-token': new URL(ui.url).searchParams.get('token') },
  });
  return r.ok ? r.json() : null;
}

/** A client of the PostgreSQL server (to find the backends serving `lanes ui`), or null. */
export async function pgClientOf(url) {
  if (!url) return null;
  const pg = createRequire(join(ROOT, 'package.json'))('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return client;
}

async function backendsOf(pg, pid) {
  const ports = tcpPortsOf(pid);
  if (!pg || ports.length === 0) return new Map();
  const { rows } = await pg.query('SELECT pid FROM pg_stat_activity WHERE client_port = ANY($1::int[])', [ports]);
  return new Map(rows.map((r) => [r.pid, cpuOf(r.pid)?.self ?? 0]));
}

/** CPU of `lanes ui` (and of its PostgreSQL backends when `pg`) while `during` runs, in % of one core. */
export async function cpuWindow(ui, pg, during) {
  const s0 = await stats(ui);
  const c0 = cpuOf(ui.proc.pid);
  const b0 = await backendsOf(pg, ui.proc.pid);
  const w0 = Date.now();
  await during();
  const c1 = cpuOf(ui.proc.pid);
  const b1 = await backendsOf(pg, ui.proc.pid);
  const s1 = await stats(ui);
  const pct = (ticks) => (100 * ticks) / TICK / ((Date.now() - w0) / 1000);
  let pgTicks = 0;
  for (const [p, t] of b1) pgTicks += t - (b0.get(p) ?? 0);
  return {
    self: pct(c1.self - c0.self),
    children: pct(c1.children - c0.children),
    pg: pg ? pct(pgTicks) : null,
    reads: s1 && s0 ? s1.storeReads - s0.storeReads : null,
  };
}
