// The fleet tables read at a glance (issue 26, item 2): a session named by its label, agent and
// ticket first (the id beside), a worktree shared by live sessions and one ticket in several
// flagged on each row concerned, a session waiting for its person said so in its state, liveness
// as proven now apart from the last lanes call, journal rows as one sentence (details one click
// away), and paths broken only after a separator. In Chromium; waits are for the page.
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { ROOT, gitRepo, lanes, lanesEnv, owner } from '../helpers/env.js';
import { SHOTS, browserMissing, consoleErrors, launch } from '../helpers/browser.js';
import { fixture, hook } from '../helpers/hooks.js';
import { startUi } from '../helpers/ui.js';

const missing = browserMissing();

test(
  'labels first, shared worktree and same ticket flagged per row, waiting shown, journal in sentences',
  { skip: missing ?? false },
  async () => {
    const env = lanesEnv();
    const repo = gitRepo();
    const opts = { env, cwd: repo };
    const start = async (args: string[]) => {
      const o = await owner(env);
      const r = await lanes(['start', '--pid', o.pid, '--json', ...args], opts);
      assert.equal(r.code, 0, r.stderr);
      return { ...(JSON.parse(r.stdout) as { id: string }), pid: o.pid };
    };
    const alpha = await start(['--agent', 'codex', '--ticket', 'SHOP-1', '--label', 'alpha']);
    const beta = await start(['--agent', 'gemini', '--ticket', 'SHOP-1', '--join', '--label', 'beta']);
    await hook('claude-code', 'session-start', fixture('claude-code', 'session-start', repo, 'w1'), opts);
    await hook('claude-code', 'notification', fixture('claude-code', 'notification', repo, 'w1'), opts);

    const ui = await startUi(env, repo);
    const browser = (await launch()) as Browser;
    after(async () => {
      await ui.stop();
      await browser.close();
    });
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors = consoleErrors(page);
    await page.goto(ui.url);
    const row = (id: string) => page.locator(`tr[data-session="${id}"]`);
    await row(alpha.id).waitFor({ timeout: 10_000 });
    // Named by label, agent and ticket; the id beside.
    assert.equal(await row(alpha.id).locator('th .name').innerText(), 'alpha (codex, SHOP-1)');
    assert.equal(await row(alpha.id).locator('th code.id').innerText(), alpha.id);
    // Both rows that share the main worktree and the ticket say so.
    const flags = async (id: string) => (await row(id).locator('[data-flag]').allInnerTexts()).join('\n');
    assert.match(await flags(alpha.id), /shares its worktree and index with beta, claude-code:w1/);
    assert.match(await flags(alpha.id), /same ticket as beta/);
    assert.match(await flags(beta.id), /same ticket as alpha/);
    // Liveness as proven now, apart from the last lanes call.
    assert.match(
      await row(alpha.id).locator('.why').innerText(),
      new RegExp(`live since .*, pid ${alpha.pid} proven now`),
    );
    // The agent waiting for its person says so.
    const waiting = row('claude-code:w1');
    assert.equal(await waiting.locator('.state').innerText(), 'waiting');
    assert.match(await waiting.locator('.why').innerText(), /Claude needs your permission to use Bash/);
    // Paths break only after a separator (the worktree's; claims are written the same way).
    const worktree = row(alpha.id).locator('td[data-label="Worktree · branch"] code.path');
    const segs = await worktree.locator('.seg').allInnerTexts();
    assert.equal(segs.join(''), repo, 'the whole path, in segments');
    assert.ok(segs.length > 2);
    assert.ok(
      segs.slice(0, -1).every((t) => t.endsWith('/')),
      `each break after a /: ${JSON.stringify(segs)}`,
    );
    assert.equal(await worktree.locator('wbr').count(), segs.length - 1);
    // Journal rows are one sentence; the details are one click away.
    const entry = page.locator('#journal tr[data-kind="attention"]');
    await entry.first().waitFor({ timeout: 10_000 });
    assert.match(
      await entry.first().locator('td.details').innerText(),
      /claude-code waits for you: Claude needs your permission/,
    );
    assert.equal(await entry.first().locator('details').getAttribute('open'), null);
    // Tonight's "Needs you" names the wait.
    assert.match(await page.locator('#tonight').innerText(), /waits for you: Claude needs your permission to use Bash/);
    mkdirSync(SHOTS, { recursive: true });
    const shot = join(SHOTS, 'fleet.png');
    await page.locator('#sessions').screenshot({ path: shot });
    if (process.env['LANES_UPDATE_SCREENSHOT'] === '1') copyFileSync(shot, join(ROOT, 'docs', 'fleet.png'));
    assert.deepEqual(errors, []);
  },
);
