// The page's diff view (issue 49, item 1) in a real browser: a session's work, committed and
// uncommitted, reached from its row and from the night's report; each file's patch coloured by
// highlight.js, its added and deleted lines marked; a token in the work hidden; a file too large
// for the page listed without its patch; an unknown session said so.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { gitRepo, lanes, lanesEnv, node } from '../helpers/env.js';
import type { Child } from '../helpers/env.js';
import { SHOTS, browserMissing, consoleErrors, launch } from '../helpers/browser.js';
import { http, startUi } from '../helpers/ui.js';
import type { RunningUi } from '../helpers/ui.js';

const missing = browserMissing();
const env = lanesEnv();
const repo = gitRepo();
const browser = (missing ? null : await launch()) as Browser;
const ui = (missing ? null : await startUi(env, repo)) as RunningUi;
const page = (missing ? null : await browser.newPage()) as Page;
const errors: string[] = missing ? [] : consoleErrors(page);
const owners: Child[] = [];

after(async () => {
  for (const o of owners) o.proc.kill();
  await ui?.stop();
  await browser?.close();
});

async function session(args: string[]): Promise<{ id: string; worktree: string }> {
  const owner = node('sleeper.mjs', [], { env });
  owners.push(owner);
  const [, pid] = (await owner.waitFor(/ready (\d+)/)) as RegExpMatchArray;
  const r = await lanes(['start', '--pid', pid!, '--json', ...args], { env, cwd: repo });
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout) as { id: string; worktree: string };
}

/** What the page's scripts see (this file is type-checked without the DOM's types). */
type Page_ = { document: { activeElement: { id: string } | null }; location: { hash: string } };

const TOKEN = `ghp_${'A1b2C3d4'.repeat(5)}`;

test(
  'a session row opens its work: files, coloured patches, uncommitted marked, a token hidden',
  { skip: missing ?? false },
  async () => {
    const s = await session(['--worktree', '--label', 'differ', '--ticket', 'SHOP-7']);
    const git = (...a: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...a], { cwd: s.worktree, stdio: 'pipe' });
    writeFileSync(join(s.worktree, 'cart.ts'), 'export function total(items: number[]): number {\n  return 0;\n}\n');
    git('add', 'cart.ts');
    git('commit', '-q', '-m', 'cart');
    writeFileSync(
      join(s.worktree, 'cart.ts'),
      'export function total(items: number[]): number {\n  return items.length;\n}\n',
    );
    writeFileSync(join(s.worktree, 'notes.md'), `# notes\nthe key is ${TOKEN}\n`);
    writeFileSync(join(s.worktree, 'big.txt'), `${'x'.repeat(99)}\n`.repeat(3000)); // 300 KB: past a file's limit

    await page.goto(ui.url);
    await page.click(`tr[data-session="${s.id}"] a[data-diff-link]`, { timeout: 15_000 });
    await page.waitForSelector(`#diff[data-diff="${s.id}"] [data-diff-heading]`, { timeout: 15_000 });
    const heading = await page.locator('[data-diff-heading]').innerText();
    assert.match(heading, /, against main at [0-9a-f]{10} \(merge-base\): 3 file\(s\) changed, 3 uncommitted/);
    assert.match(heading, /against main/);
    for (const f of ['cart.ts', 'notes.md', 'big.txt'])
      await page.waitForSelector(`tr[data-diff-file="${f}"]`, { timeout: 5_000 });
    // The code coloured by highlight.js (loaded on opening), added and deleted lines marked.
    await page.waitForSelector('details[data-patch="cart.ts"] .hl .hljs-keyword', { timeout: 10_000 });
    const cart = await page.locator('details[data-patch="cart.ts"] pre').innerText();
    assert.match(cart, /\+export function total/);
    assert.match(cart, /\+ {2}return items\.length;/);
    assert.equal(await page.locator('details[data-patch="cart.ts"] [data-line="add"]').count(), 3);
    const notes = await page.locator('details[data-patch="notes.md"]').innerText();
    assert.ok(!notes.includes(TOKEN), 'the token is hidden');
    assert.match(notes, /token hidden/);
    assert.match(await page.locator('details[data-patch="big.txt"]').innerText(), /Too large for the page/);
    assert.match(await page.locator('[data-diff-note]').innerText(), /lanes diff/);
    assert.equal(
      await page.evaluate(() => (globalThis as unknown as Page_).document.activeElement?.id),
      'diff-h',
      'the view opened in sight, focused',
    );
    // A file's link moves within the view; the view stays open.
    await page.click('tr[data-diff-file="notes.md"] a');
    await page.waitForFunction(
      () => (globalThis as unknown as Page_).location.hash.startsWith('#diff-file-'),
      undefined,
      {
        timeout: 5_000,
      },
    );
    assert.equal(await page.locator(`#diff[data-diff="${s.id}"] details[data-patch="notes.md"]`).count(), 1);
    // A line of the patch clicked starts a comment on it; Send tells the session's agent (lanes tell).
    await page.click('details[data-patch="cart.ts"] [data-at="2"]');
    type Box = { document: { querySelector(s: string): { value?: string; textContent: string } | null } };
    await page.waitForFunction(
      () => !!(globalThis as unknown as Box).document.querySelector('#tell-text')?.value,
      undefined,
      {
        timeout: 5_000,
      },
    );
    const draft = await page.locator('#tell-text').inputValue();
    assert.equal(draft, 'On cart.ts:2 ("return items.length;"): ');
    await page.locator('#tell-text').pressSequentially('count the quantities, not the items');
    await page.click('[data-tell-box] button[type="submit"]');
    await page.waitForFunction(
      () =>
        /told .* pending/.test(
          (
            globalThis as unknown as { document: { querySelector(s: string): { textContent: string } | null } }
          ).document.querySelector('[data-tell-said]')?.textContent ?? '',
        ),
      undefined,
      { timeout: 10_000 },
    );
    const told = JSON.parse((await lanes(['tell', s.id, '--list', '--json'], { env, cwd: repo })).stdout) as {
      message: string;
      delivered: unknown;
    }[];
    assert.deepEqual(
      told.map((t) => [t.message, t.delivered]),
      [['On cart.ts:2 ("return items.length;"): count the quantities, not the items', null]],
    );
    assert.equal(await page.locator('#tell-text').inputValue(), '', 'sent: the box is empty again');
    await page.screenshot({ path: join(SHOTS, 'diff.png'), fullPage: true });
    await page.click('#diff button.close');
    await page.waitForSelector('#diff', { state: 'detached', timeout: 5_000 });
    assert.match(page.url(), /token=/, 'the address keeps its token');
    assert.deepEqual(errors, []);
  },
);

test(
  "the night's report links each ticket's sessions to their work; an unknown one is said so",
  { skip: missing ?? false },
  async () => {
    const s = await session(['--worktree', '--label', 'reported', '--ticket', 'SHOP-9']);
    writeFileSync(join(s.worktree, 'report.txt'), 'made tonight\n');
    // A commit is a decision of the night: the report lists the ticket with it.
    const who = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
    const committed = await lanes(['commit', '-m', 'report', '--', 'report.txt'], {
      env: { ...env, ...who, LANES_SESSION: s.id },
      cwd: s.worktree,
    });
    assert.equal(committed.code, 0, committed.stderr);
    await page.goto(ui.url);
    await page.click('details[data-ticket="SHOP-9"] summary', { timeout: 20_000 });
    await page.click(`a[data-report-diff="${s.id}"]`, { timeout: 5_000 });
    await page.waitForSelector(`#diff[data-diff="${s.id}"] tr[data-diff-file="report.txt"]`, { timeout: 15_000 });

    await page.goto(`${ui.url}#diff=s-no-such`);
    const said = await page.waitForSelector('[data-diff-error]', { timeout: 15_000 });
    assert.match(await said.innerText(), /s-no-such/);
    const r = await http(ui.port, '/api/diff?session=', { headers: { 'x-lanes-token': ui.token } });
    assert.equal(r.status, 400);
    assert.match(r.body, /session/);
    const unknown = await http(ui.port, '/api/diff?session=s-no-such', { headers: { 'x-lanes-token': ui.token } });
    assert.equal(unknown.status, 404, unknown.body);
    const noToken = await http(ui.port, `/api/diff?session=${s.id}`);
    assert.equal(noToken.status, 403, 'a diff needs the token as the rest of the API');
  },
);
