// bench/ui-idle: what `lanes ui` costs while nothing happens (issue 28, item 6: "the dashboard
// idles"), and while a fleet is busy. One store of 1,000 sessions (500 live, 400 dead, 100 ended),
// 2,000 claims and 100,000 journal entries, filled through the store API, on SQLite and on
// PostgreSQL; the live sessions are owned by --owners sleeping processes (a liveness proof reads
// each one). For each build (this one and, with --old, another build's dist/cli.cjs, alternated in
// the same run), with one page open in Chromium (bench/ui-world.mjs measures the CPU):
//   - first render: navigation to the first session row on screen (as bench/ui.mjs), --loads times;
//   - idle: nothing written for --window seconds: CPU of `lanes ui`, its git children and (on
//     PostgreSQL) its server backends, and how often it read the store (/api/stats, this build);
//   - busy (--busy S seconds, 0: none): bench/ui-churn.ts writes --beats heartbeats and --claims
//     claim grants and releases a second meanwhile (a fleet of ~5 x --beats active agents);
//   - a change that is a journal entry: a session started by this process until its row is shown;
//   - a change that is not: that session's owner killed until its row shows dead.
// Target: <= 1% of a core with one page open on 1,000 sessions; first render <= 1 s.
// Usage: node bench/ui-idle.mjs [--old OTHER/dist/cli.cjs] [--window 30] [--rounds 3] [--owners 50]
//   [--loads 3] [--pages 1] [--settle 15] [--busy 20 --beats 20 --claims 2] [--stores sqlite,postgres] [--pg URL]
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { chromium } from 'playwright-core';
import { ROOT, table } from './lib.mjs';
import { cpuWindow, load, pgClientOf, sleep, sleeper, startUi, tsx, world } from './ui-world.mjs';

const argv = process.argv;
const opt = (name, dflt) => (argv.indexOf(name) > 0 ? argv[argv.indexOf(name) + 1] : dflt);
const WINDOW_S = Number(opt('--window', 30));
const ROUNDS = Number(opt('--rounds', 3));
const OWNERS = Number(opt('--owners', 50));
const LOADS = Number(opt('--loads', 3));
// --pages N: pages open while the CPU is measured (the last load's and N - 1 more).
const PAGES = Number(opt('--pages', 1));
const SETTLE_S = Number(opt('--settle', 15));
const BUSY_S = Number(opt('--busy', 20));
const BEATS = Number(opt('--beats', 20));
const CLAIMS = Number(opt('--claims', 2));
const OLD = opt('--old', '');
const PG_URL = opt('--pg', process.env.LANES_TEST_PG_URL ?? '');
const STORE_KINDS = opt('--stores', PG_URL ? 'sqlite,postgres' : 'sqlite').split(',');
const BUILDS = [...(OLD ? [{ name: 'before', cli: OLD }] : []), { name: 'now', cli: join(ROOT, 'dist', 'cli.cjs') }];

const { base, env, repo, commonDir } = world();
const browser = await chromium.launch({
  executablePath: process.env.LANES_TEST_CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: [...(process.getuid?.() === 0 ? ['--no-sandbox'] : []), '--disable-background-networking'],
});
const { openLanes } = await import(join(ROOT, 'dist', 'index.js'));
const owners = await Promise.all(Array.from({ length: OWNERS }, sleeper));
const pg = STORE_KINDS.includes('postgres') ? await pgClientOf(PG_URL) : null;
if (STORE_KINDS.includes('postgres') && !pg) throw new Error('--stores postgres needs --pg URL or LANES_TEST_PG_URL');

const SPEC = { live: 500, dead: 400, ended: 100, claims: 2000 };
const LIVE = Array.from(
  { length: SPEC.live },
  (_, n) => `claude-code:00000000-0000-4000-8000-${String(n + 1).padStart(12, '0')}`,
);
const stores = STORE_KINDS.map((kind) => {
  const u = kind === 'sqlite' ? null : new URL(PG_URL);
  u?.searchParams.set('schema', `bench_ui_idle_${process.pid}`);
  const location = u ? u.toString() : join(base, 'store.db');
  const spec = {
    ...SPEC,
    repo: commonDir,
    worktree: repo,
    ownerPid: process.pid,
    ownerPids: owners.map((o) => o.pid),
    dirs: 25,
  };
  tsx(env, 'scale-seed.ts', [location, JSON.stringify(spec)]);
  tsx(env, 'ui-seed.ts', [location, JSON.stringify({ count: 100_000, sessions: LIVE, repo: commonDir })]);
  return { kind, location };
});

/** bench/ui-churn.ts for `seconds`: resolves once it runs, with its end. */
function churn(store, seconds) {
  const spec = { sessions: LIVE, beats: BEATS, claims: CLAIMS, seconds };
  const proc = spawn(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'bench', 'ui-churn.ts'), store, JSON.stringify(spec)],
    {
      cwd: ROOT,
      env,
    },
  );
  const end = new Promise((r) => proc.on('close', r));
  // (An object: a promise resolved with a promise would wait for it.)
  return new Promise((resolve) => proc.stdout.once('data', () => resolve({ end })));
}

let benchSessions = 0;
async function measure(build, store) {
  const ui = await startUi(env, repo, build.cli, store.location);
  const lanes = await openLanes({ store: store.location, env, cwd: repo, session: null, notice: false });
  const serverPg = store.kind === 'sqlite' ? null : pg;
  const r = { first: [] };
  let page;
  const extra = [];
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
    for (let i = 1; i < PAGES; i++) {
      const more = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await more.goto(ui.url, { waitUntil: 'commit' });
      await more.waitForSelector('[data-link="live"]', { timeout: 30_000 });
      extra.push(more);
    }
    // What follows a start settles first (the first conflict prediction, the page's report).
    await sleep(SETTLE_S * 1000);
    r.idle = await cpuWindow(ui, serverPg, () => sleep(WINDOW_S * 1000));
    if (BUSY_S > 0) {
      const running = await churn(store.location, BUSY_S + 2);
      r.busy = await cpuWindow(ui, serverPg, () => sleep(BUSY_S * 1000));
      await running.end;
      await sleep(3000);
    }
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
    await page.waitForSelector(`tr[data-session="${started.id}"][data-state="live"]`, { timeout: 30_000 });
    r.update = Date.now() - t0;
    // A change that is not a journal entry: the owner exits, the row turns dead.
    await sleep(2000);
    const t1 = Date.now();
    owner.proc.kill('SIGKILL');
    await page.waitForSelector(`tr[data-session="${started.id}"][data-state="dead"]`, { timeout: 30_000 });
    r.death = Date.now() - t1;
  } finally {
    for (const p of extra) await p.close();
    await page?.close();
    await lanes.close({ heartbeat: false });
    ui.proc.kill('SIGINT');
    await new Promise((res) => ui.proc.on('close', res));
  }
  return r;
}

const loadBefore = load();
const results = [];
const pct = (v) => (v === null || v === undefined ? '–' : `${v.toFixed(2)}%`);
for (let round = 0; round < ROUNDS; round++)
  for (const store of stores)
    for (const build of round % 2 === 0 ? BUILDS : [...BUILDS].reverse()) {
      const r = await measure(build, store);
      results.push({ round, store: store.kind, build: build.name, ...r });
      const w = (x) => `${pct(x.self)} +git ${pct(x.children)}, pg ${pct(x.pg)}, ${x.reads ?? '?'} reads`;
      console.error(
        `round ${round + 1} ${store.kind} ${build.name}: idle ${w(r.idle)}; busy ${r.busy ? w(r.busy) : '–'}; ` +
          `first ${r.first.map(Math.round).join('/')} ms, update ${r.update} ms, death ${r.death} ms (load ${load()})`,
      );
    }
await browser.close();
for (const o of owners) o.proc.stdin.end();
if (pg) {
  await pg.query(`DROP SCHEMA IF EXISTS "bench_ui_idle_${process.pid}" CASCADE`);
  await pg.end();
}

const med = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const span = (xs, f) => `${f(med(xs))} (${f(Math.min(...xs))}–${f(Math.max(...xs))})`;
const ms = (v) => `${Math.round(v)}`;
const num = (v) => `${Math.round(v)}`;
const of = (store, build) => results.filter((r) => r.store === store && r.build === build);
const rows = (cols) =>
  stores.flatMap((store) =>
    BUILDS.map((build) => {
      const rs = of(store.kind, build.name);
      const cell = ([get, f]) =>
        rs.some((r) => get(r) === null || get(r) === undefined) ? '–' : span(rs.flatMap(get), f);
      return [store.kind, build.name, ...cols.map(cell)];
    }),
  );
console.log(
  `bench/ui-idle: ${ROUNDS} round(s), idle ${WINDOW_S} s, busy ${BUSY_S} s (${BEATS} heartbeats + ${CLAIMS} claims/s), ${OWNERS} owner processes, ${LOADS} page loads each, ${PAGES} page(s) open; load average ${loadBefore} before, ${load()} after\n`,
);
const phase = (p) => [
  [(r) => r[p]?.self, pct],
  [(r) => r[p]?.children, pct],
  [(r) => r[p]?.pg, pct],
  [(r) => r[p]?.reads, num],
];
console.log(table(['store', 'build', 'idle: ui CPU', 'git', 'pg backends', 'store reads'], rows(phase('idle'))));
if (BUSY_S > 0)
  console.log(
    `\n${table(['store', 'build', 'busy: ui CPU', 'git', 'pg backends', 'store reads'], rows(phase('busy')))}`,
  );
const latency = [
  [(r) => r.first, ms],
  [(r) => r.update, ms],
  [(r) => r.death, ms],
];
console.log(
  `\n${table(['store', 'build', 'first render ms', 'new session shown ms', 'owner killed -> dead ms'], rows(latency))}`,
);
if (OLD)
  for (const store of stores) {
    const ratio = (f) => (med(of(store.kind, 'now').map(f)) / med(of(store.kind, 'before').map(f))).toFixed(3);
    const all = (p) => (r) => r[p].self + r[p].children;
    console.log(
      `\n${store.kind}: now/before idle: ui ${ratio((r) => r.idle.self)}x, with git ${ratio(all('idle'))}x` +
        `${store.kind === 'sqlite' ? '' : `, pg backends ${ratio((r) => r.idle.pg)}x`}` +
        `${BUSY_S > 0 ? `; busy: ui with git ${ratio(all('busy'))}x` : ''}`,
    );
  }
const nowRs = results.filter((r) => r.build === 'now');
const worst = Math.max(...nowRs.map((r) => r.idle.self + r.idle.children));
const slowest = Math.max(...nowRs.flatMap((r) => r.first));
console.log(
  `\ntargets (now): idle <= 1% of a core: ${worst <= 1 ? 'met' : 'NOT met'} (max ${worst.toFixed(2)}% with git); ` +
    `first render <= 1000 ms: ${slowest <= 1000 ? 'met' : 'NOT met'} (max ${Math.round(slowest)} ms)`,
);
