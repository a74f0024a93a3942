// The page's review list (issue 49, items 4 and 5): a pull request lanes opened (with Debian's gh,
// against the local stand-in of GitHub's API) shows on "Tonight" with its checks as gh has them
// now, a link to it and its one command; and the counts line says what the night spent.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { gitRepo, lanes, lanesEnv, owner, tmp } from '../helpers/env.js';
import { SHOTS, browserMissing, consoleErrors, launch } from '../helpers/browser.js';
import { ghInstalled, gitHubStandIn, repoOnStandIn } from '../helpers/github-standin.js';
import { fixture, hook } from '../helpers/hooks.js';
import { needs } from '../helpers/needs.js';
import { startUi } from '../helpers/ui.js';

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

test(
  "Tonight's review list shows a pull request with its checks, its link and its command",
  { timeout: 120_000, skip: (browserMissing() ?? false) || needs('gh', ghInstalled()) },
  async () => {
    const hub = await gitHubStandIn({ configDir: tmp('lanes-gh-config-') });
    const bare = join(tmp('lanes-remote-'), 'origin.git');
    const repo = gitRepo();
    repoOnStandIn(hub, repo, bare);
    const env = { ...lanesEnv(), ...hub.env };
    const agent = await owner(env);
    const r = await lanes(['start', '--worktree', '--ticket', 'SHOP-9', '--json', '--pid', agent.pid], {
      env,
      cwd: repo,
    });
    assert.equal(r.code, 0, r.stderr);
    const s = JSON.parse(r.stdout) as { id: string; worktree: string };
    writeFileSync(join(s.worktree, 'cart.ts'), 'export const cart = [];\n');
    git(s.worktree, 'add', 'cart.ts');
    git(s.worktree, 'commit', '-q', '-m', 'SHOP-9: a cart');
    const opened = await lanes(['pr'], { env: { ...env, LANES_SESSION: s.id }, cwd: s.worktree });
    assert.equal(opened.code, 0, opened.stderr);
    const pr = hub.prs[0]!;
    pr.checks.push({ __typename: 'CheckRun', name: 'test', status: 'IN_PROGRESS', conclusion: '' });

    // An agent whose transcript says what it spent (issue 50): the counts line has the night's spend.
    const transcript = join(tmp('lanes-claude-'), 'transcript.jsonl');
    const usage = {
      input_tokens: 1500,
      output_tokens: 500,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
    };
    writeFileSync(
      transcript,
      `${JSON.stringify({ type: 'assistant', message: { id: 'msg_1', model: 'claude-sonnet-4-5', usage } })}\n`,
    );
    const payload = fixture('claude-code', 'session-start', repo, 'cccccccc-0000-4000-8000-000000000002', (p) => {
      p['transcript_path'] = transcript;
    });
    await hook('claude-code', 'session-start', payload, { env, cwd: repo });
    const ui = await startUi(env, repo);
    const browser = (await launch()) as Browser;
    after(async () => {
      await ui.stop();
      await browser.close();
      await agent.kill();
      await hub.close();
    });
    const page = await browser.newPage();
    const errors = consoleErrors(page);
    await page.goto(ui.url);
    const item = page.locator('#tonight li[data-review="pr open"][data-review-ticket="SHOP-9"]');
    await item.waitFor({ timeout: 15_000 });
    assert.match(await item.innerText(), /SHOP-9 has a pull request, open, checks pending \(1\)/);
    assert.equal(await item.locator('a[data-pr-link]').getAttribute('href'), pr.url);
    assert.equal(await item.locator('code.command').innerText(), `gh pr checks ${pr.url} --watch`);
    // 1,500 in at $3 and 500 out at $15 a million: $0.0120.
    assert.match(await page.locator('#tonight [data-counts]').innerText(), / · 2\.0k tokens, about \$0\.01$/);
    // …and that session's row says what it spent; a session lanes could not measure says nothing.
    const row = page.locator('#sessions tr[data-session="claude-code:cccccccc-0000-4000-8000-000000000002"]');
    assert.equal(await row.locator('[data-spent]').innerText(), '2.0k tokens, about $0.01');
    assert.equal(await page.locator(`#sessions tr[data-session="${s.id}"] [data-spent]`).count(), 0);
    await page.screenshot({ path: join(SHOTS, 'review-pr.png'), fullPage: false });
    assert.deepEqual(errors, []);
  },
);
