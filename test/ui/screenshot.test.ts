// The README's screenshot of the dashboard, made from a real fleet: a repository with agents on
// tickets in their own worktrees, two of them changing the same file (a predicted conflict), one
// killed with unsaved work and snapshotted. Checks that each panel shows its part, then writes
// test-results/ui/dashboard.png, and docs/dashboard.png with LANES_UPDATE_SCREENSHOT=1.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { ROOT, gitRepo, lanes, lanesEnv, node, tmp } from '../helpers/env.js';
import { SHOTS, browserMissing, launch } from '../helpers/browser.js';
import { startUi } from '../helpers/ui.js';

const missing = browserMissing();

test('the dashboard of a demo fleet, for the README', { skip: missing ?? false }, async () => {
  const env = lanesEnv();
  const repo = join(tmp('lanes-demo-fleet-'), 'shop');
  mkdirSync(join(repo), { recursive: true });
  gitRepo(repo);
  const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, stdio: 'pipe' });
  for (const f of ['src/checkout/cart.ts', 'src/billing/invoice.ts', 'src/legacy/export.ts']) {
    mkdirSync(dirname(join(repo, f)), { recursive: true });
    writeFileSync(join(repo, f), `export const x = 1;\n`);
  }
  git(repo, 'add', '-A');
  git(repo, 'commit', '-qm', 'shop');
  const start = async (args: string[]) => {
    const owner = node('sleeper.mjs', [], { env });
    const [, pid] = (await owner.waitFor(/ready (\d+)/)) as RegExpMatchArray;
    const r = await lanes(['start', '--pid', pid!, '--json', '--worktree', ...args], { env, cwd: repo });
    assert.equal(r.code, 0, r.stderr);
    return { ...(JSON.parse(r.stdout) as { id: string; worktree: string }), owner };
  };
  const run = async (args: string[], cwd = repo) => {
    const r = await lanes(args, { env, cwd });
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
  };
  const cart = await start(['--agent', 'claude-code', '--ticket', 'SHOP-12', '--label', 'cart totals']);
  const bill = await start(['--agent', 'codex', '--ticket', 'SHOP-15', '--label', 'invoice rounding']);
  const docs = await start(['--agent', 'gemini', '--ticket', 'SHOP-12', '--join', '--label', 'checkout docs']);
  const old = await start(['--agent', 'claude-code', '--ticket', 'SHOP-9', '--label', 'legacy export']);
  await run(['claim', 'ticket:SHOP-12', 'path:src/checkout/', '--session', cart.id], cart.worktree);
  await run(['claim', 'ticket:SHOP-15', 'path:src/billing/', '--session', bill.id], bill.worktree);
  await run(['claim', 'ticket:SHOP-9', 'path:src/legacy/', '--session', old.id], old.worktree);
  writeFileSync(join(cart.worktree, 'src/checkout/cart.ts'), 'export const x = 2; // totals\n');
  git(cart.worktree, 'commit', '-qam', 'cart: totals');
  writeFileSync(join(cart.worktree, 'src/checkout/tax.ts'), 'export const tax = 0.2;\n');
  writeFileSync(join(bill.worktree, 'src/billing/invoice.ts'), 'export const x = 3;\n');
  writeFileSync(join(bill.worktree, 'src/checkout/cart.ts'), 'export const x = 3; // rounding\n');
  writeFileSync(join(old.worktree, 'src/legacy/export.ts'), 'export const x = 4; // half done\n');
  old.owner.proc.kill('SIGKILL');
  await old.owner.exited;
  await run(['snapshot', '--session', old.id], old.worktree);
  const browser = await launch();
  const ui = await startUi(env, repo);
  after(async () => {
    await ui.stop();
    await browser.close();
    for (const s of [cart, bill, docs]) s.owner.proc.stdin.end();
  });
  const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  await page.goto(ui.url);
  await page.waitForSelector(`tr[data-session="${old.id}"][data-state="dead"]`, { timeout: 10_000 });
  await page.waitForSelector(`[data-pair*="${cart.id}"][data-pair*="${bill.id}"]`, { timeout: 20_000 });
  assert.match(await page.locator(`[data-pair*="${cart.id}"]`).innerText(), /src\/checkout\/cart\.ts/);
  assert.match(await page.locator('#conflicts').innerText(), /Same ticket SHOP-12/);
  await page.waitForSelector(`tr[data-snapshot*="${old.id}"]`, { timeout: 10_000 });
  assert.match(await page.locator(`tr[data-snapshot*="${old.id}"]`).innerText(), /lanes restore /);
  const cartRow = await page.locator(`tr[data-session="${cart.id}"]`).innerText();
  assert.match(cartRow, /1 uncommitted/);
  assert.match(cartRow, /1 ahead of main/);
  mkdirSync(SHOTS, { recursive: true });
  const shot = join(SHOTS, 'dashboard.png');
  await page.screenshot({ path: shot });
  if (process.env['LANES_UPDATE_SCREENSHOT'] === '1') copyFileSync(shot, join(ROOT, 'docs', 'dashboard.png'));
});
