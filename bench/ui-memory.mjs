// bench/ui-memory: the dashboard's memory over a long churn (issue 48, item 2: "memory flat over an
// hour of churn"). The store of bench/ui-idle.mjs (1,000 sessions: 500 live, 400 dead, 100 ended;
// 2,000 claims; 100,000 journal entries, filled through the store API), `lanes ui` of a given build
// and one page open in Chromium, while bench/ui-churn.ts writes as a busy fleet: --beats heartbeats
// and --claims claim grants and releases a second, and --starts sessions started a second, each
// with --hold claims, an older one leaving for each (by turns one ends, and one dies, its owner
// killed, and the oldest dead one is ended as `lanes gc` does): the sessions turn over, their
// number stays, the journal grows. Every --every seconds, for --minutes:
//   - the server: VmRSS of `lanes ui` (no GC can be forced there: as it is, and the least of the
//     last 3 samples), its peak (VmHWM), its CPU over the interval and the pictures it sent;
//   - the page, after a forced GC (CDP HeapProfiler.collectGarbage): the JS heap in use
//     (Runtime.getHeapUsage), DOM nodes and JS event listeners (Memory.getDOMCounters);
//   - that the page is current: the newest session's row on screen as live and the last one
//     killed as dead (the Ticket filter set to each, then cleared), and the counts it shows.
// Then, per measure, the average of the first and of the last --window minutes, their ratio, and a
// least-squares slope per hour (the sample at 0, taken as the churn starts, is the baseline: left
// out). --snapshots DIR: heap snapshots of the page and (SIGUSR2) of the server at the first and the
// last sample (they disturb the samples after them: investigation only).
// --check 0: the page left alone (no filtering for the rows). Usage: node bench/ui-memory.mjs
//   [--minutes 60] [--every 60] [--window 10] [--owners 50] [--beats 20] [--claims 2] [--starts 0.25]
//   [--hold 2] [--settle 15] [--cli DIST/cli.cjs] [--snapshots DIR] [--check 0] [--stores sqlite,postgres] [--pg URL]
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { ROOT, cpuOf, table } from './lib.mjs';
import { load, pgClientOf, sleep, sleeper, startUi, stats, tsx, world } from './ui-world.mjs';

const argv = process.argv;
const opt = (name, dflt) => (argv.indexOf(name) > 0 ? argv[argv.indexOf(name) + 1] : dflt);
const MINUTES = Number(opt('--minutes', 60));
const EVERY_S = Number(opt('--every', 60));
const WINDOW_MIN = Math.min(Number(opt('--window', 10)), MINUTES / 3);
const OWNERS = Number(opt('--owners', 50));
const CHURN = { beats: Number(opt('--beats', 20)), claims: Number(opt('--claims', 2)) };
CHURN.starts = Number(opt('--starts', 0.25));
CHURN.hold = Number(opt('--hold', 2));
const SETTLE_S = Number(opt('--settle', 15));
const CLI = resolve(opt('--cli', join(ROOT, 'dist', 'cli.cjs')));
const SNAPSHOTS = opt('--snapshots', '');
const CHECK = opt('--check', '1') !== '0';
const PG_URL = opt('--pg', process.env.LANES_TEST_PG_URL ?? '');
const STORE_KINDS = opt('--stores', 'sqlite').split(',');
const TICK = 100; // USER_HZ

const { base, env, repo, commonDir } = world();
if (SNAPSHOTS) mkdirSync(SNAPSHOTS, { recursive: true });
const browser = await chromium.launch({
  executablePath: process.env.LANES_TEST_CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: [...(process.getuid?.() === 0 ? ['--no-sandbox'] : []), '--disable-background-networking'],
});
const owners = await Promise.all(Array.from({ length: OWNERS }, sleeper));
const pg = STORE_KINDS.includes('postgres') ? await pgClientOf(PG_URL) : null;
if (STORE_KINDS.includes('postgres') && !pg) throw new Error('--stores postgres needs --pg URL or LANES_TEST_PG_URL');
const SCHEMA = `bench_ui_memory_${process.pid}`;
const SPEC = { live: 500, dead: 400, ended: 100, claims: 2000 };
const uuid = (n) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const LIVE = Array.from({ length: SPEC.live }, (_, n) => `claude-code:${uuid(n + 1)}`);
const DEAD = Array.from({ length: SPEC.dead }, (_, i) => `s-dead${i}`);

function fill(kind) {
  const u = kind === 'sqlite' ? null : new URL(PG_URL);
  u?.searchParams.set('schema', SCHEMA);
  const location = u ? u.toString() : join(base, 'store.db');
  const owned = { repo: commonDir, worktree: repo, ownerPid: process.pid, ownerPids: owners.map((o) => o.pid) };
  tsx(env, 'scale-seed.ts', [location, JSON.stringify({ ...SPEC, ...owned, dirs: 25 })]);
  tsx(env, 'ui-seed.ts', [location, JSON.stringify({ count: 100_000, sessions: LIVE, repo: commonDir })]);
  return { kind, location };
}

/** bench/ui-churn.ts for `seconds`, turning the fleet over; `seen` gets the newest started and died. */
function churn(location, seconds, seen) {
  const spec = { sessions: LIVE, dead: DEAD, repo: commonDir, worktree: repo, seconds, ...CHURN };
  const script = join(ROOT, 'bench', 'ui-churn.ts');
  const proc = spawn(process.execPath, ['--import', 'tsx', script, location, JSON.stringify(spec)], { cwd: ROOT, env });
  let [buf, json, err] = ['', 'null', ''];
  proc.stderr.on('data', (d) => (err += d));
  proc.stdout.on('data', (d) => {
    const lines = (buf + d).split('\n');
    buf = lines.pop();
    for (const line of lines) {
      const [what, id, ticket] = line.split(' ');
      if (what === 'started' || what === 'died') seen[what] = { id, ticket, at: Date.now() };
      if (line.startsWith('{')) json = line;
    }
  });
  const end = new Promise((res, rej) =>
    proc.on('close', (code) => (code === 0 ? res(JSON.parse(json)) : rej(new Error(`ui-churn: ${err}`)))),
  );
  return new Promise((res) => proc.stdout.once('data', () => res({ end })));
}

function vm(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const mb = (k) => Number(status.match(new RegExp(`${k}:\\s+(\\d+)`))?.[1] ?? NaN) / 1024;
  return { rss: mb('VmRSS'), hwm: mb('VmHWM') };
}

/** `work`, or `dflt` once it failed or took over `ms` (a page that crashed or hangs). */
const within = (ms, work, dflt) =>
  Promise.race([work.catch(() => dflt), new Promise((r) => setTimeout(r, ms, dflt)).then((d) => d)]);

async function pageMemory(cdp) {
  await cdp.send('HeapProfiler.collectGarbage');
  await cdp.send('HeapProfiler.collectGarbage');
  const heap = await cdp.send('Runtime.getHeapUsage');
  const dom = await cdp.send('Memory.getDOMCounters');
  return { heap: heap.usedSize / 2 ** 20, nodes: dom.nodes, listeners: dom.jsEventListeners };
}

/** The RSS of the renderers of the browser this process launched (the page's process), in MB. */
function rendererRss() {
  const read = (pid) => ['cmdline', 'status'].map((f) => readFileSync(`/proc/${pid}/${f}`, 'utf8'));
  const procs = readdirSync('/proc').flatMap((pid) => (/^\d+$/.test(pid) ? [orNull(() => read(pid))] : []));
  const mine = procs.find((p) => p?.[1].includes(`\nPPid:\t${process.pid}\n`) && p[0].includes('--user-data-dir='));
  const dir = mine?.[0].match(/--user-data-dir=[^\0]+/)[0];
  const kb = (p) => Number(/VmRSS:\s+(\d+)/.exec(p[1])?.[1] ?? 0);
  const renderers = procs.filter(
    (p) => dir && p?.[0].includes(dir) && p[0].includes('--type=renderer') && !p[0].includes('--top-chrome-webui'),
  );
  return renderers.reduce((a, p) => a + kb(p), 0) / 1024;
}
const orNull = (f) => {
  try {
    return f();
  } catch {
    return null; // gone meanwhile
  }
};

/** Whether the row of `s` shows `state` once the Ticket filter names it (then cleared), or '–'. */
async function shows(page, s, state) {
  if (!s || !CHECK) return '–';
  const box = page.getByRole('search', { name: 'Filter sessions' }).getByRole('searchbox', { name: 'Ticket' });
  const sel = `tr[data-session="${s.id}"][data-state="${state}"]`;
  const shown = box.fill(s.ticket, { timeout: 15_000 }).then(() => page.waitForSelector(sel, { timeout: 15_000 }));
  const ok = await shown.then(() => 'ok').catch(() => 'NO');
  await box.fill('', { timeout: 15_000 }).catch(() => undefined);
  return `${ok} ${Math.round((Date.now() - s.at) / 1000)}s`;
}

async function snapshot(cdp, ui, name) {
  if (!SNAPSHOTS) return;
  const file = createWriteStream(join(SNAPSHOTS, `page-${name}.heapsnapshot`));
  const chunk = ({ chunk: c }) => file.write(c);
  cdp.on('HeapProfiler.addHeapSnapshotChunk', chunk);
  await cdp.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
  cdp.off('HeapProfiler.addHeapSnapshotChunk', chunk);
  await new Promise((r) => file.end(r));
  ui.proc.kill('SIGUSR2'); // --heapsnapshot-signal: written to --diagnostic-dir
  await sleep(10_000);
}

const newestSeq = async (ui) => {
  const u = new URL(ui.url);
  const r = await fetch(new URL('/api/journal?limit=1', u), {
    headers: { 'x-lanes-token': u.searchParams.get('token') },
  });
  return (await r.json())[0]?.seq ?? 0;
};

async function measure(store) {
  const uiEnv = SNAPSHOTS
    ? { ...env, NODE_OPTIONS: `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${resolve(SNAPSHOTS)}` }
    : env;
  const ui = await startUi(uiEnv, repo, CLI, store.location);
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const [samples, seen] = [[], {}];
  let running, crashed; // the minute the page's process died (out of memory), if it did
  page.on('crash', () => (crashed ??= samples[samples.length - 1]?.min ?? 0));
  try {
    await page.goto(ui.url, { waitUntil: 'commit' });
    const shown = () => document.querySelector('tr[data-session]') && performance.now();
    const first = await page.waitForFunction(shown, null, { polling: 'raf', timeout: 60_000 });
    const firstMs = await first.jsonValue();
    await page.waitForSelector('[data-link="live"]', { timeout: 30_000 });
    const cdp = await page.context().newCDPSession(page);
    await sleep(SETTLE_S * 1000);
    const seq0 = await newestSeq(ui);
    running = await churn(store.location, MINUTES * 60 + 5, seen);
    const t0 = Date.now();
    let last = { cpu: cpuOf(ui.proc.pid), stats: await stats(ui), at: t0 };
    for (let k = 0; ; k++) {
      const due = t0 + k * EVERY_S * 1000;
      if (due > t0 + MINUTES * 60_000) break;
      if (Date.now() > due + EVERY_S * 500) continue; // a slot the last sample overran: skipped
      await sleep(Math.max(0, due - Date.now()));
      const at = Date.now();
      const server = vm(ui.proc.pid);
      const cpu = cpuOf(ui.proc.pid);
      const st = await stats(ui);
      const pm = await within(60_000, pageMemory(cdp), { heap: null, nodes: null, listeners: null });
      const counts = await page
        .locator('#sessions .counts')
        .innerText({ timeout: 15_000 })
        .catch(() => '');
      const [nLive, nDead] = [/(\d+) live/, /(\d+) dead/].map((re) => re.exec(counts)?.[1] ?? '?');
      const s = {
        min: (at - t0) / 60_000,
        load: load().split(' ')[0],
        ...server,
        rssMin: Math.min(server.rss, ...samples.slice(-2).map((x) => x.rss)),
        ...pm,
        renderer: rendererRss(),
        cpu: (100 * (cpu.self + cpu.children - last.cpu.self - last.cpu.children)) / TICK / ((at - last.at) / 1000),
        pictures: st && last.stats ? st.publishes - last.stats.publishes : null,
        shown: `${nLive}/${nDead}`,
        newest: await shows(page, seen.started, 'live'),
        died: await shows(page, seen.died, 'dead'),
      };
      samples.push(s);
      last = { cpu, stats: st, at };
      console.error(`${store.kind} ${row(s).join('  ')}`);
      if (k === 0) await snapshot(cdp, ui, 'first');
    }
    await snapshot(cdp, ui, 'last');
    const journal = (await newestSeq(ui)) - seq0;
    return { store: store.kind, firstMs, samples, churn: await running.end, journal, crashed };
  } finally {
    await page.close();
    ui.proc.kill('SIGINT');
    await new Promise((r) => ui.proc.on('close', r));
  }
}

const f1 = (v) => (v === null || v === undefined ? '–' : v.toFixed(1));
const row = (s) =>
  [s.min.toFixed(1), s.load, ...[s.rss, s.rssMin, s.hwm, s.heap, s.renderer].map(f1), s.nodes ?? '–'].concat([
    s.listeners ?? '–',
    `${f1(s.cpu)}%`,
    s.pictures ?? '–',
    s.shown,
    s.newest,
    s.died,
  ]);
const HEAD = ['min', 'load1', 'server RSS MB', 'RSS min of 3', 'RSS peak', 'page heap MB', 'renderer RSS'];
HEAD.push('DOM nodes', 'listeners', 'ui CPU', 'pictures', 'live/dead shown', 'newest row live', 'last killed dead');

const avg = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
/** Least-squares slope of `ys` over `xs` (minutes), per hour. */
function slope(xs, ys) {
  const [mx, my] = [avg(xs), avg(ys)];
  const sxx = xs.reduce((a, x) => a + (x - mx) ** 2, 0);
  return sxx ? (60 * xs.reduce((a, x, i) => a + (x - mx) * (ys[i] - my), 0)) / sxx : 0;
}
function summary(r) {
  const first = r.samples.filter((s) => s.min > 0 && s.min <= WINDOW_MIN + 0.01);
  const lastMin = r.samples[r.samples.length - 1].min;
  const last = r.samples.filter((s) => s.min >= lastMin - WINDOW_MIN - 0.01);
  const MEASURES = [
    ['server RSS MB', (s) => s.rss],
    ['server RSS, min of 3', (s) => s.rssMin],
    ['page JS heap MB (after GC)', (s) => s.heap],
    ['page renderer RSS MB', (s) => s.renderer],
    ['page DOM nodes', (s) => s.nodes],
    ['page JS event listeners', (s) => s.listeners],
  ];
  const has = (get) => (s) => get(s) !== null && get(s) !== undefined;
  return MEASURES.map(([name, get]) => {
    const [a, b] = [avg(first.filter(has(get)).map(get)), avg(last.filter(has(get)).map(get))];
    const all = r.samples.filter((s) => s.min > 0 && has(get)(s));
    const minutes = all.map((s) => s.min);
    const k = slope(minutes, all.map(get));
    const fx = (v, d = 1) => (Number.isFinite(v) ? v.toFixed(d) : '–'); // – : no sample (the page crashed)
    return [name, fx(a), fx(b), fx(b / a, 3), fx(k, 2), `${fx((100 * k) / a)}%`];
  });
}

const loadBefore = load();
const started = new Date().toISOString();
const results = [];
for (const kind of STORE_KINDS) results.push(await measure(fill(kind)));
await browser.close();
for (const o of owners) o.proc.stdin.end();
if (pg) {
  await pg.query(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE`);
  await pg.end();
}
const rate = `${CHURN.beats} heartbeats/s, ${CHURN.claims} claims/s, ${CHURN.starts} session starts/s (${CHURN.hold} claims each)`;
console.log(
  `bench/ui-memory: ${MINUTES} min of churn (${rate}), a sample every ${EVERY_S} s, ${OWNERS} owner processes, ` +
    `build ${CLI}; started ${started}, load average ${loadBefore} before, ${load()} after`,
);
for (const r of results) {
  const c = r.churn;
  console.log(
    `\n${r.store}: first render ${Math.round(r.firstMs)} ms; churn wrote ${c.beats} heartbeats, ${c.claims} claims, ` +
      `${c.starts} sessions started, ${c.ends} ended, ${c.deaths} killed, ${c.gcs} dead ended (${c.errors} refused); ` +
      `${r.journal} journal entries added\n`,
  );
  console.log(table(HEAD, r.samples.map(row)));
  if (r.crashed !== undefined)
    console.log(`\nTHE PAGE CRASHED (its renderer died) after the sample at ${f1(r.crashed)} min`);
  console.log(`\nfirst ${WINDOW_MIN} min vs last ${WINDOW_MIN} min (averages), least-squares slope over the run:\n`);
  console.log(table(['measure', 'first', 'last', 'last/first', 'slope per hour', 'of first'], summary(r)));
}
