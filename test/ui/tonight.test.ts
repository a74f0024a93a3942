// The page opens on the night's report (issue 26, item 2): "Tonight" comes first, with the
// counts, the "Needs you" list and each item's command, read from /api/report, which says what
// `lanes report --json` says. In Chromium; every wait is for something on the page, with a bound.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { gitRepo, lanes, lanesEnv, node, tmp } from '../helpers/env.js';
import { SHOTS, browserMissing, consoleErrors, launch } from '../helpers/browser.js';
import { http, startUi } from '../helpers/ui.js';

const missing = browserMissing();

test(
  'Tonight: the counts, a dead session with uncommitted work in Needs you with its command, the same as lanes report',
  { skip: missing ?? false },
  async () => {
    const env = lanesEnv();
    const repo = gitRepo();
    const owner = node('sleeper.mjs', [], { env });
    const [, pid] = (await owner.waitFor(/ready (\d+)/)) as RegExpMatchArray;
    const started = await lanes(
      ['start', '--pid', pid!, '--worktree', '--ticket', 'SHOP-7', '--label', 'nightly', '--json'],
      {
        env,
        cwd: repo,
      },
    );
    assert.equal(started.code, 0, started.stderr);
    const s = JSON.parse(started.stdout) as { id: string; worktree: string };
    writeFileSync(join(s.worktree, 'half-done.ts'), 'export const x = 1;\n');
    owner.proc.kill('SIGKILL');
    await owner.exited;
    assert.equal((await lanes(['snapshot', '--session', s.id], { env, cwd: repo })).code, 0);

    // A seat that ran out (issue 29): its login's agent said so through its StopFailure hook.
    const login = tmp('lanes-seat-');
    assert.equal(
      (await lanes(['seat', 'add', 'max-1', '--agent', 'claude-code', '--env', `CLAUDE_CONFIG_DIR=${login}`], { env }))
        .code,
      0,
    );
    const said = "You've hit your session limit · resets 5am (Europe/Berlin)";
    const ran = await lanes(['hook', 'claude-code', 'stop-failure'], {
      env: { ...env, CLAUDE_CONFIG_DIR: login },
      cwd: repo,
      input: JSON.stringify({
        session_id: 'q1',
        cwd: repo,
        hook_event_name: 'StopFailure',
        error: 'rate_limit',
        last_assistant_message: said,
      }),
    });
    assert.equal(ran.code, 0, ran.stderr);

    const ui = await startUi(env, repo);
    const browser = (await launch()) as Browser;
    after(async () => {
      await ui.stop();
      await browser.close();
    });
    // The page writes times in its reader's zone: this reader's is Berlin's (the seat's reset's own).
    const page = await browser.newPage({ locale: 'en-GB', timezoneId: 'Europe/Berlin' });
    const errors = consoleErrors(page);
    await page.goto(ui.url);
    const item = page.locator('#tonight li[data-needs-you]');
    await item.first().waitFor({ timeout: 10_000 });
    assert.match(await item.first().innerText(), new RegExp(`nightly \\(SHOP-7; ${s.id}\\) died`));
    // A ticket goes on with lanes new --resume (issue 45, item 4); a session without one is adopted.
    assert.equal(await item.first().locator('code.command').innerText(), 'lanes new SHOP-7 --resume');
    assert.match(await page.locator('#tonight [data-counts]').innerText(), /1 died/);
    const seat = page.locator('#tonight li[data-seat-out="max-1"]');
    await seat.waitFor({ timeout: 10_000 });
    assert.match(
      await seat.innerText(),
      /max-1 \(claude-code, pool claude-code\) until (\d{1,2} [A-Z][a-z]{2}, )?05:00 · rate_limit · no seat of its pool left/,
    );
    // "Tonight" is the first panel of the page.
    assert.equal(await page.locator('main > section').first().getAttribute('id'), 'tonight');
    await page.screenshot({ path: join(SHOTS, 'tonight.png'), fullPage: false });
    // The snapshot's restore command runs from the main worktree, not from the session's own.
    const snap = page.locator(`tr[data-snapshot*="${s.id}"] code.cmd`);
    await snap.first().waitFor({ timeout: 10_000 });
    assert.equal(await snap.first().innerText(), `cd ${repo} && lanes restore ${s.id}/1`);
    // The sessions table says what its time is: the last lanes call, not a proof of liveness.
    assert.ok(await page.locator('th', { hasText: 'Last lanes call' }).count());

    // The page's source says what the CLI says.
    const api = await http(ui.port, '/api/report', { headers: { 'x-lanes-token': ui.token } });
    const cli = JSON.parse((await lanes(['report', '--json'], { env, cwd: repo })).stdout) as { needsYou: unknown };
    assert.deepEqual((JSON.parse(api.body) as { needsYou: unknown }).needsYou, cli.needsYou);
    const bad = await http(ui.port, '/api/report?since=soon', { headers: { 'x-lanes-token': ui.token } });
    assert.equal(bad.status, 400);
    assert.deepEqual(errors, []);
  },
);
