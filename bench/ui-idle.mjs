// bench/ui-idle: what `lanes ui` costs while nothing happens (issue 28, item 6: "the dashboard
// idles"). One store of 1,000 sessions (500 live, 400 dead, 100 ended), 2,000 claims and 100,000
// journal entries, filled through the store API, on SQLite and on PostgreSQL; the live sessions are
// owned by --owners sleeping processes (a liveness proof reads each one's /proc entry). For each
// build (this one and, with --old, another build's dist/cli.cjs, alternated in the same run):
//   - first render: navigation to the first session row on screen, in Chromium (as bench/ui.mjs);
//   - a change that is a journal entry: a session started by this process until its row is shown;
//   - idle CPU: with one page open and the store untouched, the `lanes ui` process' utime+stime
//     (and its children's: git) from /proc over --window seconds, as % of one core; on PostgreSQL
//     also the server backends serving it (found by their client ports);
//   - a change that is not a journal entry: that session's owner killed until its row shows dead.
// Target: <= 1% of a core with one page open on 1,000 sessions; first render <= 1 s.
// Usage: node bench/ui-idle.mjs [--old OTHER/dist/cli.cjs] [--window 30] [--rounds 3] [--owners 50]
//          [--loads 3] [--settle 15] [--stores sqlite,postgres] [--pg URL (default LANES_TEST_PG_URL)]
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { ROOT, cpuOf, scratch, table, tcpPortsOf } from './lib.mjs';

const argv = process.argv;
const opt = (name, dflt) => (argv.indexOf(name) > 0 ? argv[argv.indexOf(name) + 1] : dflt);
const WINDOW_S = Number(opt('--window', 30));
const ROUNDS = Number(opt('--rounds', 3));
const OWNERS = Number(opt('--owners', 50));
const LOADS = Number(opt('--loads', 3));
const SETTLE_S = Number(opt('--settle', 15));
const OLD = opt('--old', '');
const PG_URL = opt('--pg', process.env.LANES_TEST_PG_URL ?? '');
const STORE_KINDS = opt('--stores', PG_URL ? 'sqlite,postgres' : 'sqlite').split(',');
const NEW = join(ROOT, 'dist', 'cli.cjs');
const BUILDS = [...(OLD ? [{ name: 'before', cli: OLD }] : []), { name: 'now', cli: NEW }];
const TICK = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

const base = scratch('lanes-bench-ui-idle-');
const env = { ...process.env, NO_COLOR: '1', LANES_GC_AFTER_MS: 'off' };
for (const k of ['LANES_SESSION', 'LANES_STORE', 'LANES_HOME']) delete env[k];
env.LANES_HOME = join(base, 'home');
const sh = (cmd, cwd) => execFileSync('bash', ['-c', cmd], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] }).toString();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

const repo = join(base, 'repo');
mkdirSync(repo);
sh('git init -q -b main && git config user.name b && git config user.email b@b && git config gc.auto 0', repo);
for (let d = 0; d < 25; d++) {
  mkdirSync(join(repo, `pkg${d}`));
  for (let f = 0; f < 8; f++) writeFileSync(join(repo, `pkg${d}`, `f${f}.ts`), `export const v = ${f};\n`);
}
sh('git add -A && git commit -q -m files', repo);
const commonDir = sh('git rev-parse --path-format=absolute --git-common-dir', repo).trim();

/** A process that only stays alive: the owner of sessions. */
function sleeper() {
  const proc = spawn(process.execPath, [join(ROOT, 'test', 'fixtures', 'sleeper.mjs')], {
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  return new Promise((resolve) =>
    proc.stdout.once('data', (d) => resolve({ proc, pid: Number(/ready (\d+)/.exec(String(d))?.[1]) })),
  );
}

function tsx(script, args) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'bench', script), ...args], {
    cwd: ROOT,
    env,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`${script}: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

let pgClient = null;
async function backendsOf(pid) {
  const ports = tcpPortsOf(pid);
  if (!pgClient || ports.length === 0) return new Map();
  const { rows } = await pgClient.query('SELECT pid FROM pg_stat_activity WHERE client_port = ANY($1::int[])', [ports]);
  return new Map(rows.map((r) => [r.pid, cpuOf(r.pid)?.self ?? 0]));
}

function startUi(cli, store) {
  const proc = spawn(process.execPath, [cli, 'ui', '--json', '--port', '0', '--store', store], { cwd: repo, env });
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

const browser = await chromium.launch({
  executablePath: process.env.LANES_TEST_CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: [...(process.getuid?.() === 0 ? ['--no-sandbox'] : []), '--disable-background-networking'],
});
const { openLanes } = await import(join(ROOT, 'dist', 'index.js'));
const owners = await Promise.all(Array.from({ length: OWNERS }, sleeper));

const SPEC = { live: 500, dead: 400, ended: 100, claims: 2000 };
const stores = [];
for (const kind of STORE_KINDS) {
  let location;
  if (kind === 'sqlite') location = join(base, 'store.db');
  else {
    if (!PG_URL) throw new Error('--stores postgres needs --pg URL or LANES_TEST_PG_URL');
    const u = new URL(PG_URL);
    u.searchParams.set('schema', `bench_ui_idle_${process.pid}`);
    location = u.toString();
    const pg = createRequire(join(ROOT, 'package.json'))('pg');
    pgClient = new pg.Client({ connectionString: PG_URL });
    await pgClient.connect();
  }
  tsx('scale-seed.ts', [
    location,
    JSON.stringify({
      ...SPEC,
      repo: commonDir,
      worktree: repo,
      ownerPid: process.pid,
      ownerPids: owners.map((o) => o.pid),
      dirs: 25,
    }),
  ]);
  const ids = Array.from(
    { length: SPEC.live },
    (_, n) => `claude-code:00000000-0000-4000-8000-${String(n + 1).padStart(12, '0')}`,
  );
  tsx('ui-seed.ts', [location, JSON.stringify({ count: 100_000, sessions: ids, repo: commonDir })]);
  stores.push({ kind, location });
}

/** What the server did so far (/api/stats; a build without it: null). */
async function stats(ui) {
  const r = await fetch(new URL('/api/stats', ui.url), {
    headers: { 'x-lanes-token': new URL(ui.url).searchParams.get('token') },
  });
  return r.ok ? r.json() : null;
}

let benchSessions = 0;
async function measure(build, store) {
  const ui = await startUi(build.cli, store.location);
  const lanes = await openLanes({ store: store.location, env, cwd: repo, session: null, notice: false });
  const r = { first: [] };
  let page;
  try {
    for (let i = 0; i < LOADS; i++) {
      page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await page.goto(ui.url, { waitUntil: 'commit' });
      const shown = await page.waitForFunction(
        () => document.querySelector('tr[data-session]') && performance.now(),
        null,
        {
          polling: 'raf',
          timeout: 60_000,
        },
      );
      r.first.push(await shown.jsonValue());
      if (i < LOADS - 1) await page.close();
    }
    await page.waitForSelector('[data-link="live"]', { timeout: 30_000 });
    // What follows a start settles first (the first conflict prediction, the page's report).
    await sleep(SETTLE_S * 1000);
    // Idle: one page open, nothing written.
    const s0 = await stats(ui);
    const c0 = cpuOf(ui.proc.pid);
    const b0 = await backendsOf(ui.proc.pid);
    const w0 = Date.now();
    await sleep(WINDOW_S * 1000);
    const c1 = cpuOf(ui.proc.pid);
    const b1 = await backendsOf(ui.proc.pid);
    const s1 = await stats(ui);
    r.reads = s1 && s0 ? s1.storeReads - s0.storeReads : null;
    const secs = (Date.now() - w0) / 1000;
    const pct = (ticks) => (100 * ticks) / TICK / secs;
    r.self = pct(c1.self - c0.self);
    r.children = pct(c1.children - c0.children);
    let pgTicks = 0;
    for (const [pid, t] of b1) pgTicks += t - (b0.get(pid) ?? 0);
    r.pg = pgClient && store.kind !== 'sqlite' ? pct(pgTicks) : null;
    r.backends = b1.size;
    r.backendsGone = [...b0.keys()].filter((p) => !b1.has(p)).length;
    // A change that is a journal entry: a session started by this process (the table shows 100
    // rows: the page is filtered to the bench's tickets first).
    await page
      .getByRole('search', { name: 'Filter sessions' })
      .getByRole('searchbox', { name: 'Ticket' })
      .fill('benchidle');
    const owner = await sleeper();
    const started = await lanes.sessions.start({
      pid: owner.pid,
      label: `bench-${build.name}`,
      ticket: `BENCHIDLE-${++benchSessions}`,
    });
    const t0 = Date.now();
    const id = started.id;
    await page.waitForSelector(`tr[data-session="${id}"][data-state="live"]`, { timeout: 30_000 });
    r.update = Date.now() - t0;
    // A change that is not a journal entry: the owner exits, the row turns dead.
    await sleep(2000);
    const t1 = Date.now();
    owner.proc.kill('SIGKILL');
    await page.waitForSelector(`tr[data-session="${id}"][data-state="dead"]`, { timeout: 30_000 });
    r.death = Date.now() - t1;
  } finally {
    await page?.close();
    await lanes.close({ heartbeat: false });
    ui.proc.kill('SIGINT');
    await new Promise((res) => ui.proc.on('close', res));
  }
  return r;
}

const loadBefore = load();
const results = [];
for (let round = 0; round < ROUNDS; round++)
  for (const store of stores) {
    const order = round % 2 === 0 ? BUILDS : [...BUILDS].reverse();
    for (const build of order) {
      const r = await measure(build, store);
      results.push({ round, store: store.kind, build: build.name, ...r });
      console.error(
        `round ${round + 1} ${store.kind} ${build.name}: ui ${r.self.toFixed(2)}% (+git ${r.children.toFixed(2)}%)` +
          `${r.reads === null ? '' : `, ${r.reads} store reads`}` +
          `${r.pg === null ? '' : `, pg ${r.pg.toFixed(2)}%`}, first ${r.first.map(Math.round).join('/')} ms, update ${r.update} ms, death ${r.death} ms (load ${load()})`,
      );
    }
  }
await browser.close();
for (const o of owners) o.proc.stdin.end();
if (pgClient) {
  for (const s of stores.filter((x) => x.kind !== 'sqlite'))
    await pgClient.query(`DROP SCHEMA IF EXISTS "${new URL(s.location).searchParams.get('schema')}" CASCADE`);
  await pgClient.end();
}

const med = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const span = (xs, f) => `${f(med(xs))} (${f(Math.min(...xs))}–${f(Math.max(...xs))})`;
const p2 = (v) => `${v.toFixed(2)}%`;
const ms = (v) => `${Math.round(v)}`;
console.log(
  `bench/ui-idle: ${ROUNDS} round(s), ${WINDOW_S} s idle windows, ${OWNERS} owner processes, ${LOADS} page loads each; load average ${loadBefore} before, ${load()} after\n`,
);
const HEAD = ['store', 'build', 'ui CPU, % core', 'git children', 'pg backends', 'store reads idle'];
const COLS = [
  ['self', p2],
  ['children', p2],
  ['pg', p2],
  ['reads', ms],
];
const HEAD2 = ['store', 'build', 'first render ms', 'new session shown ms', 'owner killed -> dead ms'];
const COLS2 = [
  ['first', ms],
  ['update', ms],
  ['death', ms],
];
const rows = (cols) =>
  stores.flatMap((store) =>
    BUILDS.map((build) => {
      const rs = results.filter((r) => r.store === store.kind && r.build === build.name);
      const cell = ([k, f]) =>
        rs.some((r) => r[k] === null)
          ? '–'
          : span(
              rs.flatMap((r) => r[k]),
              f,
            );
      return [store.kind, build.name, ...cols.map(cell)];
    }),
  );
console.log(`${table(HEAD, rows(COLS))}\n\n${table(HEAD2, rows(COLS2))}`);
if (OLD)
  for (const store of stores) {
    const of = (b) => results.filter((r) => r.store === store.kind && r.build === b);
    const ratio = (f) => (med(of('now').map(f)) / med(of('before').map(f))).toFixed(3);
    console.log(
      `\n${store.kind}: now/before, ui CPU ${ratio((r) => r.self)}x; with git ${ratio((r) => r.self + r.children)}x${
        store.kind === 'sqlite' ? '' : `; pg backends ${ratio((r) => r.pg)}x`
      }`,
    );
  }
const nowRs = results.filter((r) => r.build === 'now');
console.log(
  `\ntargets (now): ui CPU <= 1% of a core: ${nowRs.every((r) => r.self + r.children <= 1) ? 'met' : 'NOT met'} (max ${Math.max(...nowRs.map((r) => r.self + r.children)).toFixed(2)}% with git); first render <= 1000 ms: ${nowRs.every((r) => Math.max(...r.first) <= 1000) ? 'met' : 'NOT met'} (max ${Math.round(Math.max(...nowRs.flatMap((r) => r.first)))} ms)`,
);
