import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gitRepo, lanesEnv } from '../helpers/env.js';
import { http, startUi } from '../helpers/ui.js';

// The dashboard's edges (issue 24, item 8): a bad query parameter is a 400 naming it, never a 500
// with a stack trace; every response, JSON included, carries the security headers; an action body
// is bounded (413). Before: limit=-5, kind=nonsense and kind=__proto__ answered 500 and printed a
// stack; JSON answers had none of the headers; a 256 MiB body was buffered whole.

test('bad query parameters are 400 naming the parameter; JSON answers carry the security headers; action bodies are bounded', async () => {
  const ui = await startUi(lanesEnv(), gitRepo());
  try {
    const get = (path: string) => http(ui.port, path, { headers: { 'x-lanes-token': ui.token } });
    for (const [query, param] of [
      ['limit=-5', 'limit'],
      ['limit=abc', 'limit'],
      ['limit=100000', 'limit'],
      ['kind=nonsense', 'kind'],
      ['kind=__proto__', 'kind'],
      ['kind=claim,constructor', 'kind'],
    ] as const) {
      const r = await get(`/api/journal?${query}`);
      assert.equal(r.status, 400, `${query}: ${r.body}`);
      const error = (JSON.parse(r.body) as { error: { code: string; param: string; message: string } }).error;
      assert.equal(error.code, 'E_USAGE');
      assert.equal(error.param, param);
      assert.match(error.message, new RegExp(`^${param}: `));
    }
    const ok = await get('/api/journal?kind=claim,session&limit=10');
    assert.equal(ok.status, 200, ok.body);
    for (const path of ['/api/fleet', '/api/journal', '/api/journal?limit=0', '/api/nothing']) {
      const r = await get(path);
      assert.match(String(r.headers['content-security-policy']), /default-src/, `${path}: CSP`);
      assert.equal(r.headers['x-content-type-options'], 'nosniff', `${path}: nosniff`);
      assert.equal(r.headers['cache-control'], 'no-store', `${path}: no-store`);
    }
    const big = await http(ui.port, '/api/actions/end', {
      method: 'POST',
      headers: { 'x-lanes-token': ui.token, 'content-type': 'application/json', origin: ui.origin },
      body: JSON.stringify({ session: 's-x', pad: 'x'.repeat(1024 * 1024) }),
    });
    assert.equal(big.status, 413, big.body);
    assert.equal((JSON.parse(big.body) as { error: { code: string } }).error.code, 'E_TOO_LARGE');
    assert.doesNotMatch(ui.child.stderr, /\n\s+at /, 'no stack trace printed');
  } finally {
    await ui.stop();
  }
});
