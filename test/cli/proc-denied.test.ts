import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gitRepo, lanes, lanesEnv, node, tmp } from '../helpers/env.js';
import { browserMissing, launch } from '../helpers/browser.js';
import { startUi } from '../helpers/ui.js';

// /proc/<pid>/stat that cannot be read (hidepid=1, a sandbox's policy) is not a process that is
// gone: lanes learns nothing, the owner is unknown, and nothing of it is taken over. A preload
// denies the read of one pid's stat in the lanes process (EACCES), as such a mount would. Before,
// every failed read was "pid N has exited", and the claim was taken over.

test('an owner whose /proc entry cannot be read is unknown: no takeover, E_LIVENESS_UNKNOWN, ls says unknown', async () => {
  const repo = gitRepo();
  const env = lanesEnv();
  const o = node('sleeper.mjs', [], { env });
  const [, pid] = (await o.waitFor(/ready (\d+)/)) as RegExpMatchArray;
  const holder = (await lanes(['start', '--pid', pid!, '--label', 'holder'], { env, cwd: repo })).stdout.trim();
  assert.equal((await lanes(['claim', 'path:x/', '--session', holder], { env, cwd: repo })).code, 0);
  const me = (await lanes(['start', '--pid', String(process.pid)], { env, cwd: repo })).stdout.trim();
  const preload = join(tmp('lanes-deny-proc-'), 'deny.cjs');
  writeFileSync(
    preload,
    `const fs = require('node:fs');
const read = fs.readFileSync;
fs.readFileSync = function (p, ...rest) {
  if (String(p) === '/proc/${pid}/stat') { const e = new Error('EACCES: permission denied, open ' + p); e.code = 'EACCES'; throw e; }
  return read.call(this, p, ...rest);
};
`,
  );
  const denied = { env: { ...env, LANES_SESSION: me, NODE_OPTIONS: `--require ${preload}` }, cwd: repo };
  // Even with the holder really gone, lanes cannot tell from here.
  o.proc.kill('SIGKILL');
  await o.exited;
  const r = await lanes(['claim', 'path:x/a.ts', '--json'], denied);
  assert.equal(r.code, 1, r.stdout + r.stderr);
  const err = JSON.parse(r.stdout).error;
  assert.equal(err.code, 'E_LIVENESS_UNKNOWN');
  assert.match(err.message, new RegExp(`cannot read the facts of pid ${pid} here \\(denied\\)`));
  const ls = await lanes(['ls'], denied);
  assert.match(ls.stdout, new RegExp(`${holder} +unknown`));
  assert.match(ls.stdout, new RegExp(`${me} \\* +live`), 'one unreadable pid leaves the others judged');
  // The page, served by a `lanes ui` that cannot read the holder's facts either, says so too.
  if (!browserMissing()) {
    const ui = await startUi(denied.env, repo);
    const browser = await launch();
    try {
      const page = await browser.newPage();
      await page.goto(ui.url);
      const cell = page.locator(`tr[data-session="${holder}"] .state`);
      await cell.waitFor({ timeout: 10_000 });
      assert.equal(await cell.textContent(), 'unknown');
      assert.match((await page.locator(`tr[data-session="${holder}"] .why`).textContent()) ?? '', /^unknown: /);
      // The claims panel names the holder's state the same way.
      assert.equal(await page.locator('tr[data-claim="path:x/"] .state').textContent(), 'unknown');
      if (process.env['LANES_TEST_SHOT'])
        await page.screenshot({ path: process.env['LANES_TEST_SHOT'], fullPage: true });
    } finally {
      await browser.close();
      await ui.stop();
    }
  }
  // Where the facts can be read, the holder is proven dead and its claim is taken over.
  const took = await lanes(['claim', 'path:x/a.ts'], { env: { ...env, LANES_SESSION: me }, cwd: repo });
  assert.equal(took.code, 0, took.stderr);
  assert.match(took.stdout, /took over path:x\//);
});
