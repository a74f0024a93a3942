import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { allowConfig, gitRepo, lanes, lanesEnv } from '../helpers/env.js';
import { PG_SKIP, PG_URL } from '../helpers/pg.js';
import type * as Pg from 'pg';

// Issue 27, item 4: [session] setup and teardown of lanes.toml run in each new session's worktree
// with its environment (ports, templated names); a failed setup leaves nothing behind, a failed
// teardown is journaled and the session still ends. Last, the README's example on the real
// PostgreSQL of CI: a database per session cloned from a template, dropped at the end.

async function world(toml: string, allow = true) {
  const env = lanesEnv();
  const repo = gitRepo();
  writeFileSync(join(repo, 'lanes.toml'), toml);
  execFileSync('git', ['add', 'lanes.toml'], { cwd: repo });
  execFileSync('git', ['commit', '-qm', 'lanes.toml'], { cwd: repo });
  if (allow) await allowConfig(repo, env);
  return { env, repo, opts: { env, cwd: repo } };
}

const start = async (opts: { env: Record<string, string>; cwd: string }, ticket: string) => {
  const r = await lanes(['start', '--worktree', '--ticket', ticket, '--json'], opts);
  return { r, s: r.code === 0 ? (JSON.parse(r.stdout) as { id: string; worktree: string }) : null };
};

test('setup runs in the new worktree with the session environment; teardown at its end', async () => {
  const { env, opts } = await world(
    [
      '[ports]',
      'names = ["web"]',
      '[env]',
      'APP_DB = "app_{slug}"',
      '[session]',
      `setup = 'echo "setup $LANES_SESSION $APP_DB $PORT_WEB $PWD" > .setup-ran'`,
      `teardown = 'echo "teardown $APP_DB $PWD" >> "$LANES_HOME/teardown.log"'`,
      '',
    ].join('\n'),
  );
  const { r, s } = await start(opts, 'SEAT-1');
  assert.equal(r.code, 0, r.stderr);
  const ran = readFileSync(join(s!.worktree, '.setup-ran'), 'utf8');
  assert.match(ran, new RegExp(`^setup ${s!.id} app_seat-1 \\d+ ${s!.worktree}\\n$`));
  assert.equal((await lanes(['end', '--force', s!.id], opts)).code, 0);
  assert.equal(readFileSync(join(env['LANES_HOME']!, 'teardown.log'), 'utf8'), `teardown app_seat-1 ${s!.worktree}\n`);
});

test('a failed setup leaves nothing behind and shows its output; a failed teardown is journaled and the session ends', async () => {
  const { opts, env } = await world(`[session]\nsetup = 'echo "no template database" >&2; exit 3'\n`);
  const r = await lanes(['start', '--worktree', '--ticket', 'SEAT-2'], opts);
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /\[session\] setup exited with code 3: echo "no template database" >&2; exit 3\nno template database/,
  );
  const all = JSON.parse((await lanes(['ls', '--all', '--json'], opts)).stdout) as {
    state: string;
    worktree: string;
  }[];
  assert.deepEqual(
    all.map((x) => x.state),
    ['ended'],
  );
  assert.equal(existsSync(all[0]!.worktree), false, 'its new worktree is gone');
  assert.equal(
    (await lanes(['claim', 'ticket:SEAT-2', '--session', (await lanes(['start'], opts)).stdout.trim()], opts)).code,
    0,
    'the ticket is free',
  );

  const t = await world(`[session]\nsetup = 'true'\nteardown = 'echo cannot drop >&2; exit 4'\n`);
  const started = await start(t.opts, 'SEAT-3');
  assert.equal(started.r.code, 0, started.r.stderr);
  const ended = await lanes(['end', '--force', started.s!.id], t.opts);
  assert.equal(ended.code, 0, ended.stderr);
  assert.match(
    ended.stderr,
    /\[session\] teardown failed: exited with code 4; run it again with `lanes teardown s-\w+`/,
  );
  const fail = (await lanes(['log', '--kind', 'teardown', '--json'], t.opts)).stdout.trim();
  assert.match(fail, /"kind":"teardown.fail"/);
  assert.match(fail, /cannot drop/);
  const needs = JSON.parse((await lanes(['report', '--json'], t.opts)).stdout) as { needsYou: { command: string }[] };
  assert.ok(
    needs.needsYou.some((n) => n.command === `lanes teardown ${started.s!.id}`),
    JSON.stringify(needs.needsYou),
  );
  // Where no setup ran, no teardown ever runs (issue 45, item 3).
  const n = await world(`[session]\nteardown = 'echo ran > "$HOME/never"; exit 4'\n`);
  const plain = await lanes(['start', '--ticket', 'SEAT-4'], n.opts);
  assert.equal(plain.code, 0, plain.stderr);
  assert.equal((await lanes(['end', plain.stdout.trim()], n.opts)).code, 0);
  assert.equal((await lanes(['log', '--kind', 'teardown', '--json'], n.opts)).stdout.trim(), '');
  void env;
});

test('[session] in lanes.toml: bad values are named with file and line', async () => {
  for (const [toml, want] of [
    ['[session]\nsetup = ""\n', /lanes\.toml:2: session\.setup: expected a shell command/],
    ['[session]\ntimeout = "0s"\n', /session\.timeout: expected a duration of at least 1s/],
    ['[session]\nbefore = "x"\n', /session\.before: expected setup, teardown or timeout \(unknown key\)/],
    // [land] of lanes land --queue, read by the same loader.
    ['[land]\ncheck = ""\n', /lanes\.toml:2: land\.check: expected a shell command, such as "npm test"/],
    ['[land]\nstrategy = "squash"\n', /land\.strategy: expected "rebase" or "merge"/],
    ['[land]\ntimeout = "1ms"\n', /land\.timeout: expected a duration of at least 1s, such as "20m"/],
    ['[land]\nchecks = "x"\n', /land\.checks: expected check, strategy or timeout \(unknown key\)/],
  ] as const) {
    const { opts } = await world(toml, false);
    const r = await lanes(['start', '--worktree'], opts);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, want);
  }
});

test(
  "the README's example: a PostgreSQL database per session from a template, dropped at its end",
  { skip: PG_SKIP },
  async () => {
    const u = new URL(PG_URL);
    const pg = createRequire(import.meta.url)('pg') as typeof Pg;
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    const template = `app_template_${process.pid}`;
    await admin.query(`DROP DATABASE IF EXISTS ${template}`);
    await admin.query(`CREATE DATABASE ${template}`);
    const { opts } = await world(
      [
        '[env]',
        `APP_DB = "app_${process.pid}_{slug}"`,
        '[session]',
        `setup = 'createdb -T ${template} "$APP_DB"'`,
        `teardown = 'dropdb "$APP_DB"'`,
        '',
      ].join('\n'),
    );
    const env = {
      ...opts.env,
      PGHOST: u.hostname,
      PGPORT: u.port || '5432',
      PGUSER: decodeURIComponent(u.username),
      PGPASSWORD: decodeURIComponent(u.password),
    };
    const exists = async (db: string) =>
      (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [db])).rowCount === 1;
    try {
      const { r, s } = await start({ ...opts, env }, 'SHOP-1');
      assert.equal(r.code, 0, r.stderr);
      assert.equal(await exists(`app_${process.pid}_shop-1`), true, 'created from the template');
      assert.equal((await lanes(['end', '--force', s!.id], { ...opts, env })).code, 0);
      assert.equal(await exists(`app_${process.pid}_shop-1`), false, 'dropped at the end');
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS "app_${process.pid}_shop-1"`);
      await admin.query(`DROP DATABASE IF EXISTS ${template}`);
      await admin.end();
    }
  },
);
