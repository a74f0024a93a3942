import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gitRepo, lanes, lanesEnv, tmp } from '../helpers/env.js';
import { PGBOUNCER_URL, PG_SKIP, PG_URL, pgSchemaUrl } from '../helpers/pg.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';

test('the CLI on a PostgreSQL store: sessions, claims, store status and migrate', { skip: PG_SKIP }, async () => {
  const { url, drop } = pgSchemaUrl();
  try {
    const repo = gitRepo();
    const env = { ...lanesEnv(), LANES_STORE: url };
    const a = (await lanes(['start', '--label', 'alice', '--ticket', 'SEAT-1'], { env, cwd: repo })).stdout.trim();
    const asA = { env: { ...env, LANES_SESSION: a }, cwd: repo };
    const c = await lanes(['claim', 'ticket:SEAT-1', 'path:README.md'], asA);
    assert.equal(c.code, 0, c.stderr);
    const ls = JSON.parse((await lanes(['ls', '--json'], { env, cwd: repo })).stdout) as {
      id: string;
      state: string;
      claims: unknown[];
    }[];
    assert.equal(ls[0]?.state, 'live');
    assert.equal(ls[0]?.claims.length, 2);
    const status = JSON.parse((await lanes(['store', 'status', '--json'], { env, cwd: repo })).stdout) as {
      backend: string;
      location: string;
      schemaVersion: number;
      counts: { claims: number; open: number };
    };
    assert.equal(status.backend, 'postgres');
    assert.ok(!status.location.includes(`:${new URL(PG_URL).password}@`), 'no password in the location');
    assert.deepEqual([status.counts.claims, status.counts.open], [2, 1]);
    const mig = await lanes(['store', 'migrate'], { env, cwd: repo });
    assert.match(mig.stdout, /schema version \d+ \(postgres\), up to date/);
    assert.equal((await lanes(['end', '--force', a], { env, cwd: repo })).code, 0);
  } finally {
    await drop();
  }
});

test(
  'store copy moves a team from its SQLite file to PostgreSQL and back, refusing a non-empty target without --force',
  { skip: PG_SKIP },
  async () => {
    const { url, drop } = pgSchemaUrl();
    try {
      const repo = gitRepo();
      const home = tmp();
      const file = join(home, 'lanes.db');
      const env = lanesEnv(home);
      const s = (await lanes(['start', '--label', 'x'], { env, cwd: repo })).stdout.trim();
      const asS = { env: { ...env, LANES_SESSION: s }, cwd: repo };
      for (let i = 0; i < 3; i++) {
        await lanes(['claim', 'ticket:T'], asS);
        if (i < 2) await lanes(['release', 'ticket:T'], asS);
      }
      await lanes(['state', 'set', 'step', '"tests"'], asS);
      const copied = await lanes(['store', 'copy', '--from', file, '--to', url], { env, cwd: repo });
      assert.equal(copied.code, 0, copied.stderr);
      assert.match(copied.stdout, /copied 1 sessions, 1 claims, 1 state records and 6 journal entries/);
      assert.ok(!(copied.stdout + copied.stderr).includes(`:${new URL(PG_URL).password}@`));
      const onPg = { env: { ...env, LANES_STORE: url, LANES_SESSION: s }, cwd: repo };
      const claims = JSON.parse((await lanes(['claims', '--json'], onPg)).stdout) as { claim: { token: number } }[];
      assert.equal(claims[0]?.claim.token, 3, 'the token came along');
      assert.equal((await lanes(['state', 'get', 'step'], onPg)).stdout.trim(), '"tests"');
      // The journal came along: the same entries in the same order, with their times and hosts.
      const history = async (store: string) =>
        (await lanes(['log', '--json'], { env: { ...env, LANES_STORE: store }, cwd: repo })).stdout
          .trim()
          .split('\n')
          .map((l) => {
            const { seq: _seq, ...e } = JSON.parse(l) as Record<string, unknown>;
            return e;
          });
      const before = await history(file);
      assert.deepEqual(
        before.map((e) => e['kind']),
        ['session.start', 'claim.grant', 'claim.release', 'claim.grant', 'claim.release', 'claim.grant'],
      );
      assert.deepEqual(await history(url), before);
      const again = await lanes(['store', 'copy', '--from', file, '--to', url], { env, cwd: repo });
      assert.equal(again.code, 1);
      assert.match(again.stderr, /is not empty .*--force/s);
      assert.equal(
        (await lanes(['store', 'copy', '--from', file, '--to', url, '--force'], { env, cwd: repo })).code,
        0,
      );
      const back = join(tmp(), 'back.db');
      assert.equal((await lanes(['store', 'copy', '--from', url, '--to', back], { env, cwd: repo })).code, 0);
      assert.ok(existsSync(back));
      // --force replaced sessions, claims and state; the target's own journal stayed, the copy's followed it.
      assert.deepEqual(await history(back), [...before, ...before]);
      const missing = await lanes(['store', 'copy', '--from', join(home, 'nope.db'), '--to', url], { env, cwd: repo });
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /does not exist/);
    } finally {
      await drop();
    }
  },
);

test(
  'refused connection, wrong password, missing database, unsupported server, half-open connection: each a clear error without the password',
  { skip: PG_SKIP, timeout: 60_000 },
  async () => {
    const env = lanesEnv();
    const u = new URL(PG_URL);
    const withPart = (edit: (x: URL) => void) => {
      const x = new URL(PG_URL);
      edit(x);
      return x.toString();
    };
    const cases: [string, string, RegExp, string][] = [
      [
        'refused',
        withPart((x) => {
          x.hostname = '127.0.0.1';
          x.port = '1';
        }),
        /cannot reach the PostgreSQL server at postgres:\/\/\w+@127\.0\.0\.1:1\//,
        'E_STORE_IO',
      ],
      [
        'wrong password',
        withPart((x) => {
          x.password = 'not-the-password';
        }),
        /refused the login/,
        'E_STORE_AUTH',
      ],
      [
        'missing database',
        withPart((x) => {
          x.pathname = '/no_such_database_here';
        }),
        /database of .* does not exist/,
        'E_STORE_MISSING',
      ],
    ];
    for (const [what, url, message, code] of cases) {
      const r = await lanes(['ls', '--json'], { env: { ...env, LANES_STORE: url } });
      assert.equal(r.code, 1, what);
      const err = (JSON.parse(r.stdout) as { error: { code: string; message: string; hint: string } }).error;
      assert.equal(err.code, code, what);
      assert.match(err.message, message, what);
      assert.ok(err.hint.length > 10, what);
      const out = r.stdout + r.stderr;
      if (u.password)
        assert.ok(
          !out.includes(`:${u.password}@`) &&
            (u.username.includes(u.password) || u.pathname.includes(u.password) || !out.includes(u.password)),
          `${what}: the password leaked`,
        );
    }
    const old = await lanes(['ls'], { env: { ...env, LANES_STORE: PG_URL, LANES_TEST_PG_MIN_VERSION: '990000' } });
    assert.equal(old.code, 1);
    assert.match(old.stderr, /is version \d+; lanes needs 99 or newer/);

    // A connection that stays open but passes nothing: bounded by the query timeout, not a hang.
    const proxy = await TcpProxy.start(u.hostname, Number(u.port || 5432));
    const via = withPart((x) => {
      x.hostname = '127.0.0.1';
      x.port = String(proxy.port);
    });
    const { url, drop } = pgSchemaUrl();
    try {
      const viaSchema = new URL(via);
      viaSchema.searchParams.set('schema', new URL(url).searchParams.get('schema') ?? '');
      assert.equal((await lanes(['ls'], { env: { ...env, LANES_STORE: viaSchema.toString() } })).code, 0);
      proxy.swallow();
      const t0 = Date.now();
      const hung = await lanes(['ls'], {
        env: { ...env, LANES_STORE: viaSchema.toString(), LANES_PG_TIMEOUT_MS: '1500' },
      });
      assert.equal(hung.code, 1, hung.stderr);
      assert.match(hung.stderr, /PostgreSQL server at postgres:\/\/\w+@127\.0\.0\.1:\d+\//);
      assert.ok(Date.now() - t0 < 15_000, 'bounded');
    } finally {
      proxy.restore();
      await drop();
    }
  },
);

test(
  'through PgBouncer: a wrong password and an unknown database are named as such, and sessions work',
  { skip: PG_SKIP || (PGBOUNCER_URL ? false : 'LANES_TEST_PGBOUNCER_URL is not set: no PgBouncer for this run') },
  async () => {
    const env = lanesEnv();
    const edit = (f: (x: URL) => void) => {
      const x = new URL(PGBOUNCER_URL);
      f(x);
      return x.toString();
    };
    const bad = await lanes(['ls', '--json'], {
      env: {
        ...env,
        LANES_STORE: edit((x) => {
          x.password = 'wrong-one';
        }),
      },
    });
    assert.equal((JSON.parse(bad.stdout) as { error: { code: string } }).error.code, 'E_STORE_AUTH');
    const nodb = await lanes(['ls', '--json'], {
      env: {
        ...env,
        LANES_STORE: edit((x) => {
          x.pathname = '/no_such_db';
        }),
      },
    });
    assert.equal((JSON.parse(nodb.stdout) as { error: { code: string } }).error.code, 'E_STORE_MISSING');
    const { url, drop } = pgSchemaUrl(PGBOUNCER_URL);
    try {
      const repo = gitRepo();
      const s = await lanes(['start', '--label', 'pooled'], { env: { ...env, LANES_STORE: url }, cwd: repo });
      assert.equal(s.code, 0, s.stderr);
      const c = await lanes(['claim', 'ticket:POOL-1'], {
        env: { ...env, LANES_STORE: url, LANES_SESSION: s.stdout.trim() },
        cwd: repo,
      });
      assert.equal(c.code, 0, c.stderr);
    } finally {
      await drop();
    }
  },
);
