// The dashboard idles (issue 28, item 6): with a page open and nothing written, the server reads
// the store's change mark and nothing else (no read of the sessions, no git, no picture sent), and
// changes that no journal entry records still reach the open page: a heartbeat (the last lanes
// call), attention cleared by the agent working again, a wait given up, a session of another host
// whose lease ran out (no write at all), an owner that exited. In Chromium, against the real
// `lanes ui`; each wait is for the page (or the server's counters), with a bound.
import { join } from 'node:path';
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { openLanes } from '../../src/index.js';
import { gitRepo, lanes, lanesChild, lanesEnv, owner } from '../helpers/env.js';
import { browserMissing, consoleErrors, launch } from '../helpers/browser.js';
import { fixture, hook } from '../helpers/hooks.js';
import { http, startUi } from '../helpers/ui.js';
import type { RunningUi } from '../helpers/ui.js';

const missing = browserMissing();
const env = lanesEnv();
const repo = gitRepo();
const opts = { env, cwd: repo };
// Another host's sessions are live while their lease runs (4 s for this server).
const ui = (missing ? null : await startUi({ ...env, LANES_LEASE_MS: '4000' }, repo)) as RunningUi;
const browser = (missing ? null : await launch()) as Browser;
const page = (missing ? null : await browser.newPage({ viewport: { width: 1280, height: 900 } })) as Page;
const errors: string[] = missing ? [] : consoleErrors(page);

after(async () => {
  await ui?.stop();
  await browser?.close();
});

const row = (id: string) => page.locator(`tr[data-session="${id}"]`);

async function start(args: string[], extraEnv: Record<string, string> = {}) {
  const o = await owner(env);
  const r = await lanes(['start', '--pid', o.pid, '--json', ...args], { env: { ...env, ...extraEnv }, cwd: repo });
  assert.equal(r.code, 0, r.stderr);
  return { id: (JSON.parse(r.stdout) as { id: string }).id, owner: o };
}

/** The journal's newest entry number (a change that writes none leaves it as it was). */
async function lastEntry(): Promise<number> {
  const l = await openLanes({
    store: join(env['LANES_HOME']!, 'lanes.db'),
    env,
    cwd: repo,
    session: null,
    notice: false,
  });
  try {
    return (await l.journal.list({ order: 'desc', limit: 1 }))[0]?.seq ?? 0;
  } finally {
    await l.close({ heartbeat: false });
  }
}

interface Stats {
  marks: number;
  storeReads: number;
  proofs: number;
  gitReads: number;
  publishes: number;
}

async function stats(): Promise<Stats> {
  const r = await http(ui.port, '/api/stats', { headers: { 'x-lanes-token': ui.token } });
  assert.equal(r.status, 200, r.body);
  return JSON.parse(r.body) as Stats;
}

/** Waits (bounded) until `ok` holds, looking again every 100 ms. */
async function until(ok: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await ok())) {
    assert.ok(Date.now() < deadline, `within 10 s: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Waits (bounded) until the server has read the change mark `n` more times. */
async function marks(n: number): Promise<Stats> {
  const from = (await stats()).marks;
  const deadline = Date.now() + 30_000;
  for (;;) {
    const s = await stats();
    if (s.marks >= from + n) return s;
    assert.ok(Date.now() < deadline, `the server read the change mark ${s.marks - from} times in 30 s, not ${n}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test(
  'with a page open and nothing written, the server reads the change mark only',
  { skip: missing ?? false },
  async () => {
    const a = await start(['--label', 'quiet']);
    await page.goto(ui.url);
    await row(a.id).waitFor({ timeout: 10_000 });
    await page.waitForSelector('[data-link="live"]', { timeout: 10_000 });
    // What followed the start is done once the repository's conflicts are predicted (the last of
    // it, a few seconds after the session came) and the counters stand still over a few ticks;
    // from then on, nothing but marks and proofs.
    await page.waitForSelector('#conflicts article[data-repo]', { timeout: 30_000 });
    const still = (a: Stats, b: Stats) =>
      a.storeReads === b.storeReads && a.gitReads === b.gitReads && a.publishes === b.publishes;
    let before = await marks(8);
    for (let next = await marks(8); !still(before, next); next = await marks(8)) before = next;
    const idle = await marks(16);
    assert.deepEqual(
      [idle.storeReads, idle.gitReads, idle.publishes],
      [before.storeReads, before.gitReads, before.publishes],
      `16 ticks without a write: no read of the store or of git, no picture sent (${JSON.stringify({ before, idle })})`,
    );
    assert.ok(idle.proofs > before.proofs, 'the live session is proven live again meanwhile');
    assert.equal(await row(a.id).getAttribute('data-state'), 'live');
  },
);

test('changes no journal entry records reach the open page', { skip: missing ?? false }, async () => {
  const s = await start(['--label', 'beats']);
  await page.goto(ui.url);
  await row(s.id).waitFor({ timeout: 10_000 });

  // A heartbeat: any lanes call of the session (a short lease makes it write at once).
  let seq = await lastEntry();
  const seen = Number(await row(s.id).locator('[data-last-seen]').getAttribute('data-last-seen'));
  await new Promise((r) => setTimeout(r, 20));
  const who = await lanes(['whoami'], { env: { ...env, LANES_SESSION: s.id, LANES_LEASE_MS: '1200' }, cwd: repo });
  assert.equal(who.code, 0, who.stderr);
  await until(
    async () => Number(await row(s.id).locator('[data-last-seen]').getAttribute('data-last-seen')) > seen,
    'the last lanes call shown moves',
  );
  assert.equal(await lastEntry(), seq, 'a heartbeat is no journal entry');

  // Attention: the agent waits for its person (journaled), then works again (cleared, unjournaled).
  await hook('claude-code', 'session-start', fixture('claude-code', 'session-start', repo, 'idle1'), opts);
  await hook('claude-code', 'notification', fixture('claude-code', 'notification', repo, 'idle1'), opts);
  const agent = row('claude-code:idle1');
  await page.waitForSelector('tr[data-session="claude-code:idle1"] .state:text-is("waiting")', { timeout: 10_000 });
  seq = await lastEntry();
  await hook('claude-code', 'pre-tool-use', fixture('claude-code', 'pre-tool-use-edit', repo, 'idle1'), opts);
  await page.waitForSelector('tr[data-session="claude-code:idle1"] .state:text-is("live")', { timeout: 10_000 });
  assert.equal(await agent.getAttribute('data-state'), 'live');
  assert.equal(await lastEntry(), seq, 'working again clears the wait without an entry');

  // A wait given up (Ctrl-C): the wait is removed, nothing journaled.
  const holder = await start(['--label', 'holder']);
  assert.equal((await lanes(['claim', 'path:src/idle/', '--session', holder.id], opts)).code, 0);
  const waiter = lanesChild(['claim', '--wait=60s', 'path:src/idle/', '--session', s.id], opts);
  await page.waitForSelector(`li[data-wait="${s.id}"]`, { timeout: 10_000 });
  seq = await lastEntry();
  waiter.proc.kill('SIGINT');
  await waiter.exited;
  await page.waitForSelector(`li[data-wait="${s.id}"]`, { state: 'detached', timeout: 10_000 });
  assert.equal(await lastEntry(), seq, 'a wait given up is no journal entry');

  // Another host's session: live while its lease runs, dead when it ran out; nothing is written
  // in between (the server judges it on the store's clock).
  const remote = await start(['--label', 'far'], { LANES_HOST_ID: 'build-box' });
  await page.waitForSelector(`tr[data-session="${remote.id}"][data-state="live"]`, { timeout: 10_000 });
  // Its lease ends 4 s after it started: shown dead within a moment of that (not at the next read
  // of the store some other change would cause).
  await page.waitForSelector(`tr[data-session="${remote.id}"][data-state="dead"]`, { timeout: 8000 });
  assert.match(await row(remote.id).locator('.why').innerText(), /host build-box stopped heartbeating/);

  // An owner that exits: its row turns dead (proven from the process, not from the store).
  await s.owner.kill();
  await page.waitForSelector(`tr[data-session="${s.id}"][data-state="dead"]`, { timeout: 5000 });
  assert.deepEqual(errors, []);
});
