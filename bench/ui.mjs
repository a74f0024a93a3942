// bench/ui: the dashboard (lanes ui) against the store's size, timed in a real browser (Debian's
// Chromium through playwright-core, as test/ui/browser.test.ts). Two stores filled through the store
// API: a small one (10 sessions, 100 journal entries) as the baseline measured in the same run, and
// one of 1,000 sessions (500 live, 400 dead, 100 ended), 2,000 claims and 100,000 journal entries.
// For each: the first render (navigation to the first session row on screen, performance.now() in
// the page), the update latency (a claim granted by this process until its row is on screen, the
// same clock; and when its picture arrived on the page, the server's part of it), and the
// server's memory (VmRSS / VmHWM of the `lanes ui` process).
// The floor: a static one-row page from a local server, in the same browser and run.
// Targets (issue 48, item 2; issue 11's were 1 s each): with the big store, first render <= 600 ms
// and an update made by another process (this one, through the library) on screen <= 300 ms at the
// 95th percentile of 20. The server's idle CPU and memory over churn: bench/ui-idle.mjs.
// Usage: node bench/ui.mjs [--runs 3] [--updates 20]
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, get as httpGet } from 'node:http';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { ROOT, percentile, scratch, table } from './lib.mjs';

const argv = process.argv;
const opt = (name, dflt) => (argv.indexOf(name) > 0 ? argv[argv.indexOf(name) + 1] : dflt);
const RUNS = Number(opt('--runs', 3));
const UPDATES = Number(opt('--updates', 20));
const PAGE_PROF = opt('--page-prof', '');
const CLI = join(ROOT, 'dist', 'cli.cjs');
const base = scratch('lanes-bench-ui-');
const env = { ...process.env, NO_COLOR: '1', LANES_GC_AFTER_MS: 'off' };
for (const k of ['LANES_SESSION', 'LANES_STORE', 'LANES_HOME']) delete env[k];
env.LANES_HOME = join(base, 'home');
const sh = (cmd, cwd) => execFileSync('bash', ['-c', cmd], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] }).toString();
const uuid = (n) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

const repo = join(base, 'repo');
mkdirSync(repo);
sh('git init -q -b main && git config user.name b && git config user.email b@b && git config gc.auto 0', repo);
for (let d = 0; d < 25; d++) {
  mkdirSync(join(repo, `pkg${d}`));
  for (let f = 0; f < 8; f++) writeFileSync(join(repo, `pkg${d}`, `f${f}.ts`), `export const v = ${f};\n`);
}
sh('git add -A && git commit -q -m files', repo);
const commonDir = sh('git rev-parse --path-format=absolute --git-common-dir', repo).trim();

const STORES = [
  { name: '10 sessions, 100 claims, 100 journal entries', live: 9, dead: 1, ended: 0, claims: 100, journal: 100 },
  {
    name: '1,000 sessions (500 live, 400 dead, 100 ended), 2,000 claims, 100,000 journal entries',
    live: 500,
    dead: 400,
    ended: 100,
    claims: 2000,
    journal: 100_000,
  },
];

function tsx(script, args) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'bench', script), ...args], {
    cwd: ROOT,
    env,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`${script}: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

function startUi(store) {
  const proc = spawn(
    process.execPath,
    [
      ...(process.env.UI_PROF ? ['--cpu-prof', '--cpu-prof-dir=/tmp/uiprof'] : []),
      CLI,
      'ui',
      '--json',
      '--port',
      '0',
      '--store',
      store,
    ],
    { cwd: repo, env },
  );
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

/** The page's event stream, read here: the time each 'fleet' event arrives goes into `times`. */
function listen(pageUrl, times) {
  const u = new URL(pageUrl);
  const req = httpGet(`${u.origin}/api/events?token=${u.searchParams.get('token')}`, (res) => {
    let buf = '';
    res.on('data', (d) => {
      buf += d;
      let i;
      while ((i = buf.indexOf('\n\n')) >= 0) {
        if (buf.slice(0, i).startsWith('event: fleet')) times.push(Date.now());
        buf = buf.slice(i + 2);
      }
    });
  });
  req.on('error', () => undefined);
  return req;
}

function memory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k) => Number(status.match(new RegExp(`${k}:\\s+(\\d+)`))?.[1] ?? NaN);
  return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
}

const browser = await chromium.launch({
  executablePath: process.env.LANES_TEST_CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: [...(process.getuid?.() === 0 ? ['--no-sandbox'] : []), '--disable-background-networking'],
});
// The floor of a first render on this machine now: a static page with one row, from a local server.
const floor = createServer((_, res) =>
  res.end('<!doctype html><title>floor</title><table><tr data-session="x"><td>x</td></tr></table>'),
);
await new Promise((r) => floor.listen(0, '127.0.0.1', r));
const floorRuns = [];
for (let run = 0; run < RUNS; run++) {
  const page = await browser.newPage();
  await page.goto(`http://127.0.0.1:${floor.address().port}/`, { waitUntil: 'commit' });
  const shown = await page.waitForFunction(
    () => document.querySelector('tr[data-session]') && performance.now(),
    null,
    {
      polling: 'raf',
    },
  );
  floorRuns.push(await shown.jsonValue());
  await page.close();
}
floor.close();
floorRuns.sort((a, b) => a - b);
const { openLanes } = await import(join(ROOT, 'dist', 'index.js'));
const results = [];
for (const [i, spec] of STORES.entries()) {
  const store = join(base, `store-${i}.db`);
  const seeded = tsx('scale-seed.ts', [
    store,
    JSON.stringify({ ...spec, repo: commonDir, worktree: repo, ownerPid: process.pid, dirs: 25 }),
  ]);
  const ids = Array.from({ length: spec.live }, (_, n) => `claude-code:${uuid(n + 1)}`);
  const journal = tsx('ui-seed.ts', [store, JSON.stringify({ count: spec.journal, sessions: ids, repo: commonDir })]);
  const ui = await startUi(store);
  const lanes = await openLanes({ store, env, cwd: repo, session: null, notice: false });
  const first = [];
  const updates = [];
  const wire = [];
  for (let run = 0; run < RUNS; run++) {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(ui.url, { waitUntil: 'commit' });
    const shown = await page.waitForFunction(
      () => document.querySelector('tr[data-session]') && performance.now(),
      null,
      {
        polling: 'raf',
        timeout: 60_000,
      },
    );
    first.push(await shown.jsonValue());
    await page.waitForSelector('[data-link="live"]', { timeout: 30_000 });
    // A listener of the server's event stream in this process: when each picture is sent (the
    // server's part of an update), apart from when it is on screen (the page's part).
    const arrived = [];
    const stream = listen(ui.url, arrived);
    // --page-prof FILE: a CPU profile of the page over the big store's updates (Chromium's profiler).
    const prof = PAGE_PROF && i === STORES.length - 1 && run === 0 ? await page.context().newCDPSession(page) : null;
    if (prof) await prof.send('Profiler.enable').then(() => prof.send('Profiler.start'));
    for (let u = 0; u < UPDATES; u++) {
      const resource = `path:bench/r${run}u${u}/`;
      await lanes.claims.claim([resource], { session: ids[1] });
      const granted = Date.now();
      const seen = await page.waitForFunction(
        (sel) => document.querySelector(sel) && Date.now(),
        `tr[data-claim="${resource}"]`,
        { polling: 'raf', timeout: 30_000 },
      );
      const on = await seen.jsonValue();
      updates.push(on - granted);
      const came = arrived.find((a) => a >= granted);
      if (came !== undefined) wire.push(came - granted);
    }
    stream.destroy();
    if (prof) writeFileSync(PAGE_PROF, JSON.stringify((await prof.send('Profiler.stop')).profile));
    await page.close();
  }
  const mem = memory(ui.proc.pid);
  await lanes.close({ heartbeat: false });
  ui.proc.kill('SIGINT');
  await new Promise((r) => ui.proc.on('close', r));
  first.sort((a, b) => a - b);
  updates.sort((a, b) => a - b);
  wire.sort((a, b) => a - b);
  results.push({ spec, seeded, journal, first, updates, wire, mem });
}
await browser.close();

const ms = (v) => `${Math.round(v)} ms`;
const [small, big] = results;
console.log(
  `bench/ui (${RUNS} page loads, ${UPDATES} updates each; load ${sh('cat /proc/loadavg', repo).split(' ').slice(0, 3).join(' ')})\n`,
);
console.log(
  table(
    [
      'store',
      'first render (median, max)',
      'update (median, p95, max)',
      'of it, sent (median, p95)',
      'server RSS / peak',
    ],
    results.map((r) => [
      `${r.spec.name}`,
      `${ms(percentile(r.first, 50))}, ${ms(r.first[r.first.length - 1])}`,
      `${ms(percentile(r.updates, 50))}, ${ms(percentile(r.updates, 95))}, ${ms(r.updates[r.updates.length - 1])}`,
      `${ms(percentile(r.wire, 50))}, ${ms(percentile(r.wire, 95))}`,
      `${r.mem.rss.toFixed(0)} / ${r.mem.hwm.toFixed(0)} MB`,
    ]),
  ),
);
const ratio = (a, b) => (a / b).toFixed(2);
console.log(
  `\nfloor (a static one-row page from a local server, same browser): first render median ${ms(percentile(floorRuns, 50))}; big store ${ratio(percentile(big.first, 50), percentile(floorRuns, 50))}x, small ${ratio(percentile(small.first, 50), percentile(floorRuns, 50))}x the floor`,
);
console.log(
  `\nbig/small: first render ${ratio(percentile(big.first, 50), percentile(small.first, 50))}x, update ${ratio(percentile(big.updates, 50), percentile(small.updates, 50))}x, server peak memory ${ratio(big.mem.hwm, small.mem.hwm)}x`,
);
console.log(
  `targets (big store): first render <= 600 ms: ${big.first[big.first.length - 1] <= 600 ? 'met' : 'NOT met'} (max); update <= 300 ms: ${percentile(big.updates, 95) <= 300 ? 'met' : 'NOT met'} (p95)`,
);
