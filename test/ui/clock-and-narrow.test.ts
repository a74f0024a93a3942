// The page in one clock, at any width (issue 47, item 6). Every moment it shows is written one way,
// in the reader's locale and time zone (the browser's; here en-GB in Europe/Paris), hours and
// minutes, with the date when not today: times the server wrote in UTC (a seat's reset in the
// journal, a death in Needs you) included. The claims table keeps a holder's id and its state in
// cells apart. At 390 px each session is a card with its state, and nothing is wider than the
// window. Expectations come from the times written into the store here, never from today's date.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { gitRepo, lanes, lanesEnv, owner, tmp } from '../helpers/env.js';
import { SHOTS, browserMissing, consoleErrors, launch } from '../helpers/browser.js';
import { rawSqlite } from '../helpers/sqlite.js';
import { startUi } from '../helpers/ui.js';
import type { RunningUi } from '../helpers/ui.js';

const missing = browserMissing();
const ZONE = 'Europe/Paris';
const LOCALE = 'en-GB';
const DAY = 86_400_000;

// What en-GB in Paris writes, from Intl itself (not the page's code): 00:28, or 6 Dec, 23:10.
const hm = new Intl.DateTimeFormat(LOCALE, { timeZone: ZONE, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
const dm = new Intl.DateTimeFormat(LOCALE, { timeZone: ZONE, day: 'numeric', month: 'short' });
const ymd = new Intl.DateTimeFormat(LOCALE, { timeZone: ZONE, year: 'numeric', month: '2-digit', day: '2-digit' });
const expected = (at: number, now: number) =>
  ymd.format(at) === ymd.format(now) ? hm.format(at) : `${dm.format(at)}, ${hm.format(at)}`;
const TODAY_SHAPE = /^\d\d:\d\d$/;
const OTHER_DAY_SHAPE = /^\d{1,2} [A-Z][a-z]{2}, \d\d:\d\d$/;

interface World {
  ui: RunningUi;
  browser: Browser;
  /** A live session started at `startedAt`, today's: it holds path:src/checkout/. */
  today: { id: string; startedAt: number };
  /** A live session started two days ago, whose session.start entry says so too. */
  old: { id: string; startedAt: number; seq: number };
  dead: { id: string };
  long: { id: string };
}

async function world(): Promise<World> {
  const env = lanesEnv();
  const repo = gitRepo();
  const opts = { env, cwd: repo };
  const start = async (args: string[]) => {
    const o = await owner(env);
    const r = await lanes(['start', '--pid', o.pid, '--json', ...args], opts);
    assert.equal(r.code, 0, r.stderr);
    return { ...(JSON.parse(r.stdout) as { id: string; worktree: string }), kill: o.kill };
  };
  const run = async (args: string[], o: Parameters<typeof lanes>[1] = opts) => {
    const r = await lanes(args, o);
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
  };
  const today = await start(['--agent', 'codex', '--ticket', 'SHOP-1', '--label', 'cart totals']);
  const old = await start(['--agent', 'gemini', '--label', 'old friend']);
  const dead = await start(['--worktree', '--agent', 'claude-code', '--ticket', 'SHOP-9', '--label', 'legacy export']);
  const long = await start([]);
  await run(['claim', 'path:src/checkout/', '--session', today.id]);
  await run(['claim', 'path:src/legacy/', '--session', dead.id]);
  await run(['claim', `path:src/${'very/long/'.repeat(6)}name.ts`, '--session', long.id]);
  writeFileSync(join(dead.worktree, 'half-done.ts'), 'export const x = 1;\n');
  await dead.kill();
  await run(['snapshot', '--session', dead.id]);
  // A seat ran out: the journal writes its reset in UTC (untilText), Needs you too.
  const login = tmp('lanes-seat-');
  await run(['seat', 'add', 'max-1', '--agent', 'claude-code', '--env', `CLAUDE_CONFIG_DIR=${login}`]);
  const said = "You've hit your session limit · resets 5am (Europe/Berlin)";
  const input = JSON.stringify({
    session_id: 'q1',
    cwd: repo,
    hook_event_name: 'StopFailure',
    error: 'rate_limit',
    last_assistant_message: said,
  });
  await run(['hook', 'claude-code', 'stop-failure'], { env: { ...env, CLAUDE_CONFIG_DIR: login }, cwd: repo, input });
  // The times this test knows: written into the store before the page reads it.
  const now = Date.now();
  const todayAt = now - 60_000;
  const oldAt = now - 2 * DAY;
  const db = rawSqlite(join(env['LANES_HOME']!, 'lanes.db'));
  let seq: number;
  try {
    db.prepare('UPDATE sessions SET created_at = ? WHERE id = ?').run(todayAt, today.id);
    db.prepare('UPDATE sessions SET created_at = ? WHERE id = ?').run(oldAt, old.id);
    const row = db.prepare(`SELECT seq FROM journal WHERE session_id = ? AND kind = 'session.start'`).get(old.id) as {
      seq: number;
    };
    seq = row.seq;
    db.prepare('UPDATE journal SET at = ? WHERE seq = ?').run(oldAt, seq);
  } finally {
    db.close();
  }
  const ui = await startUi(env, repo);
  const browser = await launch();
  after(async () => {
    await ui.stop();
    await browser.close();
  });
  return {
    ui,
    browser,
    today: { id: today.id, startedAt: todayAt },
    old: { id: old.id, startedAt: oldAt, seq },
    dead: { id: dead.id },
    long: { id: long.id },
  };
}

const w = (missing ? null : await world()) as World;

async function open(width: number, height: number, locale = LOCALE, timezoneId = ZONE) {
  const context = await w.browser.newContext({ viewport: { width, height }, locale, timezoneId });
  const page = await context.newPage();
  const errors = consoleErrors(page);
  await page.goto(w.ui.url);
  await page.locator(`tr[data-session="${w.dead.id}"][data-state="dead"]`).waitFor({ timeout: 15_000 });
  await page.locator('#tonight li[data-needs-you]').first().waitFor({ timeout: 15_000 });
  await page.locator(`#journal tr[data-seq="${w.old.seq}"]`).waitFor({ timeout: 15_000 });
  await page.locator(`tr[data-snapshot*="${w.dead.id}"]`).waitFor({ timeout: 15_000 });
  after(() => context.close());
  return { page, errors };
}

/** Every <time> on the page: its instant and its text. */
const times = (page: Page) =>
  page
    .locator('time')
    .evaluateAll((els) => els.map((e) => ({ at: Date.parse(e.getAttribute('datetime') ?? ''), text: e.textContent })));

/** The text the page shows (what is laid out: closed details left out), but for its <time>s. */
const textBesideTimes = (page: Page) =>
  page.evaluate(`(() => {
    const out = [];
    const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      const el = n.parentElement;
      if (!el || el.closest('time, script') || !el.checkVisibility()) continue;
      const details = el.closest('details');
      if (details && !details.open && !el.closest('summary')) continue;
      out.push(n.textContent);
    }
    return out.join(' ');
  })()`) as Promise<string>;

/** How an element is laid out (the test's own types have no DOM: page-side code as text). */
const display = (page: Page, selector: string) =>
  page.evaluate(`getComputedStyle(document.querySelector(${JSON.stringify(selector)})).display`) as Promise<string>;

/** A session id glued to a state word: "s-d9yqm0epe2dead". */
const RUN_TOGETHER = /\bs-[0-9a-z]{10}(live|dead|ended|unknown|waiting|finished|denied|died)/;

test(
  'one clock: every time in the reader locale and zone, hours and minutes, the date when not today',
  { skip: missing ?? false },
  async () => {
    const { page, errors } = await open(1280, 800);
    const now = Date.now();
    const todayText = expected(w.today.startedAt, now);
    const oldText = expected(w.old.startedAt, now);
    assert.match(oldText, OTHER_DAY_SHAPE, 'two days ago carries its date');
    const row = (id: string) => page.locator(`tr[data-session="${id}"]`);
    assert.match(
      await row(w.today.id).locator('.state-cell .why').innerText(),
      new RegExp(`^live since ${todayText}, pid \\d+`),
    );
    assert.match(
      await row(w.old.id).locator('.state-cell .why').innerText(),
      new RegExp(`^live since ${oldText}, pid \\d+`),
    );
    assert.equal(await page.locator(`#journal tr[data-seq="${w.old.seq}"] time`).innerText(), oldText);
    // Every moment on the page, whatever wrote it, in the same format.
    const all = await times(page);
    assert.ok(all.length >= 8, JSON.stringify(all));
    for (const t of all) {
      assert.equal(t.text, expected(t.at, now), `the time ${new Date(t.at).toISOString()}`);
      assert.match(t.text ?? '', ymd.format(t.at) === ymd.format(now) ? TODAY_SHAPE : OTHER_DAY_SHAPE);
    }
    // Times the server had in UTC reach the page as instants: the seat's reset in its journal entry,
    // in the waiting agent's state and in Needs you, the death in Needs you.
    const exhausted = page.locator('#journal tr[data-kind="seat.exhausted"] td.details');
    const until = Number(/\buntil=(\d+)/.exec((await exhausted.locator('details').textContent()) ?? '')?.[1]);
    assert.ok(until > now, 'the entry keeps its reset as epoch ms (until=)');
    assert.equal(await exhausted.locator('> time').count(), 1, "the seat's reset, as a <time>");
    const instant = new Date(until).toISOString();
    assert.equal(await exhausted.locator('> time').getAttribute('datetime'), instant, 'its untilText, as an instant');
    assert.equal(await exhausted.locator('> time').innerText(), expected(until, now));
    const waiting = page.locator('tr[data-session="claude-code:q1"] .state-cell time').first();
    assert.equal(await waiting.getAttribute('datetime'), instant, "the waiting agent's reset");
    assert.equal(
      await page.locator('#tonight li[data-needs-you] time').count(),
      3,
      "the death, the seat's reset its agent waits for, the pool's first reset",
    );
    // A time is a word of its own: "until 8 Dec, 05:00", never "until8 Dec, 05:00".
    const glued = (await page.evaluate(`[...document.querySelectorAll('time')]
      .map((t) => [t.previousSibling?.textContent ?? '', t.textContent, t.nextSibling?.textContent ?? ''])
      .filter(([before, , next]) => /\\w$/.test(before) || /^\\w/.test(next))
      .map((parts) => parts.join('|'))`)) as string[];
    assert.deepEqual(glued, []);
    // No other clock anywhere: no seconds, no UTC, no AM/PM, no time outside a <time>.
    const rest = await textBesideTimes(page);
    assert.doesNotMatch(rest, /\d{1,2}:\d\d/, 'a time written outside the one format');
    assert.doesNotMatch(rest, /\bUTC\b|\b[AP]M\b/);
    // Another reader, another clock: the same instant in New York's 12-hour time.
    const us = await open(1280, 800, 'en-US', 'America/New_York');
    const usText = await us.page.locator(`#journal tr[data-seq="${w.old.seq}"] time`).innerText();
    assert.match(usText, /^[A-Z][a-z]{2} \d{1,2}, \d{1,2}:\d\d [AP]M$/);
    assert.equal(
      usText,
      new Intl.DateTimeFormat('en-US', {
        timeZone: 'America/New_York',
        month: 'short',
        day: 'numeric',
        hour: 'numeric',
        minute: '2-digit',
      }).format(w.old.startedAt),
    );
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: join(SHOTS, 'wide-1280.png'), fullPage: true });
    assert.deepEqual([...errors, ...us.errors], []);
  },
);

test('claims: the holder and its state in cells apart, nothing run together', { skip: missing ?? false }, async () => {
  for (const [width, height] of [
    [1280, 800],
    [390, 844],
  ] as const) {
    const { page } = await open(width, height);
    const claim = page.locator('tr[data-claim="path:src/checkout/"]');
    const heldBy = (await claim.locator('[data-held-by]').innerText()).trim();
    assert.match(heldBy, new RegExp(`${w.today.id}$`), `${width}: the holder's cell ends with its id`);
    assert.doesNotMatch(heldBy, /live/, `${width}: no state in the holder's cell`);
    assert.equal((await claim.locator('[data-claim-state]').innerText()).trim(), 'live');
    const deadClaim = page.locator('tr[data-claim="path:src/legacy/"] [data-claim-state] .state');
    assert.equal(await deadClaim.innerText(), 'dead');
    // No table on the page glues an id to a state.
    assert.doesNotMatch(await page.locator('body').innerText(), RUN_TOGETHER, `${width}: an id run into a state`);
  }
});

test(
  'at 390 px: each session a card with its state, no sideways scroll, nothing cut off',
  { skip: missing ?? false },
  async () => {
    const { page, errors } = await open(390, 844);
    const scroll = (await page.evaluate('document.documentElement.scrollWidth')) as number;
    assert.ok(scroll <= 390, `the page is ${scroll}px wide`);
    const ids = await page
      .locator('tr[data-session]')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-session')!));
    assert.ok(ids.length >= 4, ids.join(' '));
    for (const id of ids) {
      const card = page.locator(`tr[data-session="${id}"]`);
      await card.scrollIntoViewIfNeeded();
      assert.ok(await card.isVisible(), `${id}: visible`);
      assert.equal(await display(page, `tr[data-session="${id}"]`), 'block', `${id}: a card, not a table row`);
      const box = (await card.boundingBox())!;
      assert.ok(box.x >= 0 && box.x + box.width <= 390, `${id}: within the window (${JSON.stringify(box)})`);
      const state = card.locator('[data-shown-state]');
      assert.ok(await state.isVisible(), `${id}: its state is shown`);
      assert.match(await state.innerText(), /^(live|dead|unknown|waiting|finished|denied|ended|died)$/);
    }
    assert.equal(await page.locator(`tr[data-session="${w.dead.id}"] [data-shown-state]`).innerText(), 'dead');
    // Each card names its last activity and its age, and a dead one its actions.
    const dead = page.locator(`tr[data-session="${w.dead.id}"]`);
    assert.match(await dead.locator('td.seen').innerText(), /ago[\s\S]*started .* ago/);
    assert.ok(await dead.getByRole('button', { name: `End ${w.dead.id}` }).isVisible());
    // Nothing wider than the window, inside a scrolling region or not (the hidden table heads aside).
    const wide = (await page.evaluate(`[...document.querySelectorAll('main *')]
    .filter((e) => !e.closest('thead'))
    .map((e) => [e, e.getBoundingClientRect()])
    .filter(([, r]) => r.width > 0 && r.height > 0 && (r.left < -0.5 || r.right > 390.5))
    .map(([e, r]) => e.tagName + '.' + e.className + ' ' + Math.round(r.left) + '..' + Math.round(r.right))`)) as string[];
    assert.deepEqual(wide, []);
    const clipped = (await page.evaluate(`[...document.querySelectorAll('main *')]
    .filter((e) => !e.closest('thead') && e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX !== 'visible')
    .map((e) => e.tagName + '.' + e.className)`)) as string[];
    assert.deepEqual(clipped, [], 'an element scrolls or clips sideways');
    await page.screenshot({ path: join(SHOTS, 'narrow-390.png'), fullPage: true });
    assert.deepEqual(errors, []);
  },
);

test(
  'at 1280 px: the sessions are a table, and none of it hides in its scroll region',
  { skip: missing ?? false },
  async () => {
    const { page } = await open(1280, 800);
    assert.equal(await display(page, `tr[data-session="${w.long.id}"]`), 'table-row');
    const overflow = await page
      .locator('#sessions .table-wrap')
      .first()
      .evaluate((e) => e.scrollWidth - e.clientWidth);
    assert.ok(overflow <= 0, `the sessions table scrolls sideways by ${overflow}px at 1280`);
  },
);
