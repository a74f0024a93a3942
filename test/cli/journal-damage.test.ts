import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { gitRepo, lanes, lanesChild, lanesEnv } from '../helpers/env.js';
import { http, startUi } from '../helpers/ui.js';
import { sqliteDamage } from '../store/journal-damage.js';

// Issue 46, item 2, through every reader a person has: one damaged journal row (a manual fix,
// another version's writer, a failing disk) made `lanes log` in every form exit 1, ended a running
// `lanes log -f` and made the page's /api/journal answer 500. Now each says which row it could not
// read and what is wrong, and shows everything else. (The store contract checks the readers of
// both backends with every way of damage: test/store/contract-journal-damage.ts.)

test('damaged journal rows: log, log --json, log -f, report and the page read on, naming each unreadable row', async () => {
  const env = lanesEnv();
  const repo = gitRepo();
  const opts = { env, cwd: repo };
  const id = (await lanes(['start', '--ticket', 'T-1', '--pid', String(process.pid)], opts)).stdout.trim();
  const as = { env: { ...env, LANES_SESSION: id }, cwd: repo };
  for (const p of ['a', 'b', 'c']) await lanes(['claim', `path:src/${p}.ts`], as);
  await lanes(['release', 'path:src/a.ts'], as);
  // A refusal: what the report reads (it reads the kinds it tells, and names those it cannot read).
  const other = (await lanes(['start', '--pid', String(process.pid)], opts)).stdout.trim();
  assert.equal((await lanes(['claim', 'path:src/b.ts'], { env: { ...env, LANES_SESSION: other }, cwd: repo })).code, 3);
  const before = JSON.parse(`[${(await lanes(['log', '--json'], opts)).stdout.trim().split('\n').join(',')}]`) as {
    seq: number;
    kind: string;
  }[];
  const grants = before.filter((e) => e.kind === 'claim.grant').map((e) => e.seq);
  const damage = sqliteDamage(join(env['LANES_HOME']!, 'lanes.db'));
  assert.ok(await damage(grants[0]!, 'not-json'));
  assert.ok(await damage(grants[1]!, 'json-null'));
  assert.ok(await damage(grants[2]!, 'huge-subject'));
  const release = before.find((e) => e.kind === 'claim.release')!.seq;
  assert.ok(await damage(release, 'wrong-details'));
  const refusal = before.find((e) => e.kind === 'claim.refuse')!.seq;
  assert.ok(await damage(refusal, 'array'));

  const log = await lanes(['log'], opts);
  assert.equal(log.code, 0, log.stderr);
  assert.match(log.stdout, new RegExp(`#${grants[0]} .*unreadable row: details are not JSON \\("not json \\{"\\)`));
  assert.match(log.stdout, new RegExp(`#${grants[1]} .*unreadable row: details are null`));
  assert.match(log.stdout, /its subject is 10485760 characters long \(cut\)/);
  assert.ok(log.stdout.length < 100_000, 'no 10 MB line');
  assert.match(log.stdout, /session\.start/, 'the rest is there');
  for (const args of [['--json'], ['--kind', 'claim'], ['--session', id], ['--since', '1h'], ['--ticket', 'T-1']]) {
    const r = await lanes(['log', ...args], opts);
    assert.equal(r.code, 0, `log ${args.join(' ')}: ${r.stderr}`);
  }
  const json = (await lanes(['log', '--json'], opts)).stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { seq: number; unreadable?: string });
  assert.deepEqual(
    json.filter((e) => e.unreadable).map((e) => e.seq),
    [grants[0], grants[1], grants[2], refusal],
  );

  // A follower from the start reads past them and goes on following.
  const follower = lanesChild(['log', '-f', '--since', '0'], opts);
  await follower.waitFor(new RegExp(`#${grants[1]} `));
  await lanes(['claim', 'path:src/after.ts'], as);
  await follower.waitFor(/claimed path:src\/after\.ts/);
  follower.proc.kill('SIGINT');
  await follower.exited;

  const report = await lanes(['report', '--since', '1h'], opts);
  assert.equal(report.code, 0, report.stderr);
  assert.match(
    report.stdout,
    new RegExp(`Unreadable journal rows \\(1\\)\\n\\s+• #${refusal} claim\\.refuse: details are an array`),
  );
  const rj = JSON.parse((await lanes(['report', '--since', '1h', '--json'], opts)).stdout) as {
    unreadable: { seq: number; kind: string; why: string }[];
  };
  assert.deepEqual(
    rj.unreadable.map((u) => [u.seq, u.kind]),
    [[refusal, 'claim.refuse']],
  );

  const ui = await startUi(env, repo);
  try {
    const r = await http(ui.port, '/api/journal', { headers: { 'x-lanes-token': ui.token } });
    assert.equal(r.status, 200, r.body.slice(0, 300));
    const entries = JSON.parse(r.body) as { seq: number; unreadable?: string; text: string }[];
    assert.match(entries.find((e) => e.seq === grants[0])!.text, /unreadable row/);
    assert.ok(entries.some((e) => e.seq === release && !e.unreadable));
  } finally {
    await ui.stop();
  }
});
