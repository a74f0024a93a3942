// lanes ui, safe by default (issue 11, item 5): each guard seen refusing through the real server.
import { writeFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gitRepo, lanes, lanesEnv, node } from '../helpers/env.js';
import { http, startUi } from '../helpers/ui.js';

const env = lanesEnv();
const repo = gitRepo();

test('the page and API need the per-run token; the wrong one is 403, and a new run has a new token', async () => {
  const ui = await startUi(env, repo);
  const again = await startUi(env, repo);
  try {
    assert.notEqual(ui.token, again.token, 'a token per run');
    assert.match(ui.token, /^[\w-]{32}$/, '24 random bytes');
    assert.equal(new URL(ui.url).hostname, '127.0.0.1');
    assert.equal((await http(ui.port, `/?token=${ui.token}`)).status, 200);
    assert.equal((await http(ui.port, `/?token=${again.token}`)).status, 403, "another run's token");
    assert.equal((await http(ui.port, '/')).status, 403, 'no token');
    assert.equal((await http(ui.port, '/api/fleet')).status, 403);
    assert.equal(
      // One character changed (never the same one: a token may begin with x).
      (
        await http(ui.port, '/api/fleet', {
          headers: { 'x-lanes-token': (ui.token[0] === 'x' ? 'y' : 'x') + ui.token.slice(1) },
        })
      ).status,
      403,
    );
    assert.equal((await http(ui.port, `/api/fleet?token=${ui.token}`)).status, 403, 'the API takes it in a header');
    const ok = await http(ui.port, '/api/fleet', { headers: { 'x-lanes-token': ui.token } });
    assert.equal(ok.status, 200);
    assert.equal((JSON.parse(ok.body) as { store: { backend: string } }).store.backend, 'sqlite');
    assert.equal((await http(ui.port, '/assets/app.js')).status, 200, 'the script carries no data and needs none');
  } finally {
    await ui.stop();
    await again.stop();
  }
});

test('Host and Origin are checked (DNS rebinding, other sites); actions are POST with the token in a header', async () => {
  const ui = await startUi(env, repo);
  const token = { 'x-lanes-token': ui.token };
  try {
    const rebound = await http(ui.port, '/api/fleet', { headers: { ...token, host: `attacker.example:${ui.port}` } });
    assert.equal(rebound.status, 403, 'a rebinding page sends its own host name');
    assert.match(rebound.body, /is not this dashboard/);
    assert.equal(
      (await http(ui.port, '/api/fleet', { headers: { ...token, host: `localhost:${ui.port}` } })).status,
      200,
    );
    const foreign = await http(ui.port, '/api/fleet', { headers: { ...token, origin: 'http://evil.example' } });
    assert.equal(foreign.status, 403);
    const post = (headers: Record<string, string>, method = 'POST') =>
      http(ui.port, '/api/actions/snapshot', {
        method,
        headers: { 'content-type': 'application/json', ...headers },
        ...(method === 'POST' ? { body: '{"session":"s-nobody"}' } : {}),
      });
    assert.equal((await post({ ...token, origin: 'http://evil.example' })).status, 403, 'foreign Origin');
    assert.equal((await post({ ...token, origin: `http://127.0.0.1:${ui.port + 1}` })).status, 403, 'another port');
    assert.equal((await post({ ...token, 'sec-fetch-site': 'cross-site' })).status, 403);
    assert.equal((await post({})).status, 403, 'no token');
    const inQuery = await http(ui.port, `/api/actions/snapshot?token=${ui.token}`, { method: 'POST', body: '{}' });
    assert.equal(inQuery.status, 403, 'a form cannot set a header: the query does not count for actions');
    assert.equal((await post(token, 'GET')).status, 405);
    const mine = await post({ ...token, origin: ui.origin });
    assert.equal(mine.status, 404, 'past the guard: no such session');
    assert.match(mine.body, /E_UNKNOWN_SESSION/);
  } finally {
    await ui.stop();
  }
});

test('every response carries a Content-Security-Policy without inline scripts', async () => {
  const ui = await startUi(env, repo);
  try {
    for (const path of [`/?token=${ui.token}`, '/assets/app.js', '/api/fleet', '/nothing']) {
      const r = await http(ui.port, path);
      const csp = String(r.headers['content-security-policy']);
      assert.match(csp, /default-src 'none'/, path);
      assert.match(csp, /script-src 'self'(;|$)/, path);
      assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/, path);
      assert.equal(r.headers['x-content-type-options'], 'nosniff');
      assert.equal(r.headers['referrer-policy'], 'no-referrer', 'the token in the URL is never sent on');
    }
    assert.doesNotMatch((await http(ui.port, `/?token=${ui.token}`)).body, /<script>|<style>|style=/);
  } finally {
    await ui.stop();
  }
});

test('127.0.0.1 only by default; another address only with --host, and a warning', async (t) => {
  const other = Object.values(networkInterfaces())
    .flat()
    .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
  const ui = await startUi(env, repo);
  try {
    if (!other) t.diagnostic('no non-loopback IPv4 address on this machine: the refusal on it is not checked');
    else await assert.rejects(http(ui.port, '/', { host: other }), /ECONNREFUSED/, `not listening on ${other}`);
    assert.equal(ui.child.stderr, '', 'no warning on loopback');
  } finally {
    await ui.stop();
  }
  const wide = await startUi(env, repo, ['--host', '0.0.0.0']);
  try {
    await wide.child.waitFor(/WARNING: listening on 0\.0\.0\.0, reachable from other machines/, 'stderr');
    if (other)
      assert.equal(
        (
          await http(wide.port, '/api/fleet', {
            host: other,
            headers: { host: `${other}:${wide.port}`, 'x-lanes-token': wide.token },
          })
        ).status,
        200,
      );
  } finally {
    await wide.stop();
  }
  const bad = await lanes(['ui', '--port', '70000'], { env, cwd: repo });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--port must be a number from 0 to 65535/);
});

test('the value of an environment variable lanes strips is never shown, wherever it appears', async () => {
  const secret = 'sk-live-0123456789abcdef';
  const withSecret = { ...env, DEMO_API_KEY: secret };
  writeFileSync(join(repo, 'lanes.toml'), '[env]\nstrip = ["DEMO_*"]\n');
  const owner = node('sleeper.mjs', [], { env });
  const [, pid] = (await owner.waitFor(/ready (\d+)/)) as RegExpMatchArray;
  const started = await lanes(['start', '--pid', pid!, '--label', `key ${secret}`, '--json'], { env, cwd: repo });
  assert.equal(started.code, 0, started.stderr);
  const ui = await startUi(withSecret, repo);
  try {
    const r = await http(ui.port, '/api/fleet', { headers: { 'x-lanes-token': ui.token } });
    assert.equal(r.status, 200);
    assert.ok(!r.body.includes(secret), 'the value is not in what the page receives');
    assert.match(r.body, /key \[\$DEMO_API_KEY hidden\]/);
    assert.deepEqual((JSON.parse(r.body) as { hidden: string[] }).hidden, ['DEMO_API_KEY'], 'the name only');
  } finally {
    await ui.stop();
    owner.proc.stdin.end();
  }
});
