import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { request } from 'node:http';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES, allowConfig, gitRepo, lanes, lanesChild, lanesEnv, node } from '../helpers/env.js';

function repoWithConfig(toml: string): string {
  const repo = gitRepo();
  writeFileSync(join(repo, 'lanes.toml'), toml);
  execFileSync('git', ['add', 'lanes.toml'], { cwd: repo });
  execFileSync('git', ['commit', '-q', '-m', 'config'], { cwd: repo });
  return repo;
}

const get = (port: number) =>
  new Promise<string>((resolve, reject) => {
    request({ host: '127.0.0.1', port, path: '/' }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve(body));
    })
      .on('error', reject)
      .end();
  });

test(
  'two sessions run a dev server on PORT_WEB at once: no EADDRINUSE, each answers as itself',
  { timeout: 60_000 },
  async () => {
    const repo = repoWithConfig('[ports]\nnames = ["web"]\nrange = "23000-23999"\n');
    const env = lanesEnv();
    const start = async () => (await lanes(['start', '--pid', String(process.pid)], { env, cwd: repo })).stdout.trim();
    const [a, b] = [await start(), await start()];
    const serve = (id: string) =>
      lanesChild(['exec', '--', process.execPath, join(FIXTURES, 'server.mjs')], {
        env: { ...env, LANES_SESSION: id },
        cwd: repo,
      });
    const sa = serve(a);
    const sb = serve(b);
    const [, pa] = (await sa.waitFor(/listening (\d+)/)) as RegExpMatchArray;
    const [, pb] = (await sb.waitFor(/listening (\d+)/)) as RegExpMatchArray;
    assert.notEqual(pa, pb);
    assert.equal(await get(Number(pa)), a);
    assert.equal(await get(Number(pb)), b);
    sa.proc.stdin.end();
    sb.proc.stdin.end();
    assert.equal((await sa.exited).code, 0, 'exit code passed through');
    assert.equal((await sb.exited).code, 0);
  },
);

test(
  "a dead session's port is reusable; 16 processes leasing at once get 16 distinct ports",
  { timeout: 120_000 },
  async () => {
    const repo = repoWithConfig('[ports]\nnames = ["web"]\nrange = "24000-24015"\n');
    const env = lanesEnv();
    const kids = Array.from({ length: 16 }, () => node('port-leaser.mjs', [], { env, cwd: repo }));
    await Promise.all(kids.map((k) => k.waitFor(/ready/)));
    for (const k of kids) k.send('go');
    const ports = await Promise.all(kids.map(async (k) => Number((await k.waitFor(/port (\d+)/))[1])));
    assert.equal(new Set(ports).size, 16, `distinct ports: ${ports.join(' ')}`);
    // The range is now full; a 17th live session gets none until one of the holders dies.
    const extra = (await lanes(['start', '--pid', String(process.pid)], { env, cwd: repo })).stdout.trim();
    const full = await lanes(['port', 'web'], { env: { ...env, LANES_SESSION: extra }, cwd: repo });
    assert.equal(full.code, 3, full.stderr);
    assert.match(full.stderr, /no free port/);
    for (const k of kids) k.proc.stdin.end();
    await Promise.all(kids.map((k) => k.exited)); // the leasers exit: their sessions are dead now
    const reused = await lanes(['port', 'web', '--json'], { env: { ...env, LANES_SESSION: extra }, cwd: repo });
    assert.equal(reused.code, 0, reused.stderr);
    assert.ok(ports.includes(JSON.parse(reused.stdout).port), "a dead session's port was reused");
  },
);

test(
  'stripped keys are absent in the child and present in the parent; templates; non-ASCII values round-trip',
  { timeout: 60_000 },
  async () => {
    const repo = repoWithConfig(
      '[env]\nDATABASE_NAME = "{repo}_{slug}"\nREDIS_PREFIX = "{slug}:"\nstrip = ["ANTHROPIC_API_KEY", "*_TOKEN"]\n',
    );
    const env = { ...lanesEnv(), ANTHROPIC_API_KEY: 'sk-paid', GH_TOKEN: 'ghp', KEEP_ME: 'héllo 😀 שלום' };
    await allowConfig(repo, env);
    const id = (
      await lanes(['start', '--ticket', 'SEAT 7/ü', '--pid', String(process.pid)], { env, cwd: repo })
    ).stdout.trim();
    const as = { env: { ...env, LANES_SESSION: id }, cwd: repo };
    const out = await lanes(
      [
        'exec',
        '--',
        'sh',
        '-c',
        'printf "%s|%s|%s|%s|%s" "${ANTHROPIC_API_KEY-absent}" "${GH_TOKEN-absent}" "$KEEP_ME" "$DATABASE_NAME" "$REDIS_PREFIX"',
      ],
      as,
    );
    assert.equal(out.code, 0, out.stderr);
    const repoName = repo.split('/').pop()!.toLowerCase();
    assert.equal(out.stdout, `absent|absent|héllo 😀 שלום|${repoName}_seat-7-u|seat-7-u:`);
    assert.equal(as.env.ANTHROPIC_API_KEY, 'sk-paid', 'the parent keeps it');
    const check = JSON.parse((await lanes(['env', '--check', '--json'], as)).stdout);
    assert.deepEqual(check.stripped.sort(), ['ANTHROPIC_API_KEY', 'GH_TOKEN']);
    const sh = (await lanes(['env'], as)).stdout;
    assert.match(sh, /^export TMPDIR='.*\/tmp'$/m);
    const code = await lanes(['exec', '--', 'sh', '-c', 'exit 7'], as);
    assert.equal(code.code, 7);
  },
);

test('config errors name the file, line and key; unknown keys and unsafe template results are errors', async () => {
  const env = lanesEnv();
  const cases: [string, RegExp][] = [
    ['[ports]\nnames = ["web"]\nrange = "80-90"\n', /lanes\.toml:3: ports\.range: expected a string "LOW-HIGH"/],
    ['[ports]\n\nnamez = ["web"]\n', /lanes\.toml:3: ports\.namez: expected names or range \(unknown key\)/],
    ['[colors]\nx = 1\n', /lanes\.toml:1: \[colors\]: expected one of the tables/],
    ['[env]\nDB = "{repo}_{nope}"\n', /lanes\.toml:2: env\.DB: expected placeholders among/],
    ['[env]\nstrip = "X"\n', /lanes\.toml:2: env\.strip: expected an array/],
    ['[ports\n', /lanes\.toml:1:7: /],
  ];
  for (const [toml, re] of cases) {
    const repo = repoWithConfig(toml);
    const id = (await lanes(['start', '--pid', String(process.pid)], { env, cwd: repo })).stdout.trim();
    const r = await lanes(['env'], { env: { ...env, LANES_SESSION: id }, cwd: repo });
    assert.equal(r.code, 2, `${toml}: ${r.stderr}`);
    assert.match(r.stderr, re);
  }
  const repo = repoWithConfig('[env]\nDB = "{ticket}"\n');
  await allowConfig(repo, env);
  const id = (
    await lanes(['start', '--ticket', 'has space', '--pid', String(process.pid)], { env, cwd: repo })
  ).stdout.trim();
  const unsafe = await lanes(['env'], { env: { ...env, LANES_SESSION: id }, cwd: repo });
  assert.equal(unsafe.code, 2);
  assert.match(unsafe.stderr, /not a safe name/);
});

test('a template that can never render is refused by every command, `lanes port` as well as `lanes env` (issue 13, item 7)', async () => {
  const env = lanesEnv();
  for (const template of ['my db {slug}', '', '{slug}/{repo}', 'ä{slug}']) {
    const repo = repoWithConfig(`[ports]\nnames = ["web"]\n\n[env]\nDB = ${JSON.stringify(template)}\n`);
    const id = (await lanes(['start', '--pid', String(process.pid)], { env, cwd: repo })).stdout.trim();
    for (const args of [['env'], ['port', 'web'], ['exec', '--', 'true']]) {
      const r = await lanes(args, { env: { ...env, LANES_SESSION: id }, cwd: repo });
      assert.equal(r.code, 2, `${template} / ${args.join(' ')}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, /lanes\.toml:5: env\.DB: expected a template of letters, digits/);
    }
  }
});
