// A session's leased ports are found again by a lookup of the one port claim each names, not by
// reading every claim the session holds (`lanes exec` asks in every call).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gitRepo, lanes, lanesEnv } from '../helpers/env.js';

test('a leased port is kept while its claim is held (same port, same token) and leased again once released', async () => {
  const repo = gitRepo();
  writeFileSync(join(repo, 'lanes.toml'), '[ports]\nnames = ["web", "api"]\nrange = "25100-25199"\n');
  execFileSync('git', ['add', 'lanes.toml'], { cwd: repo });
  execFileSync('git', ['commit', '-q', '-m', 'ports'], { cwd: repo });
  const env = lanesEnv();
  const id = (await lanes(['start', '--pid', String(process.pid)], { env, cwd: repo })).stdout.trim();
  const as = { env: { ...env, LANES_SESSION: id }, cwd: repo };
  // Claims of its own besides the ports, and another session's port claim.
  const paths = Array.from({ length: 300 }, (_, i) => `path:src/f${i}.ts`);
  assert.equal((await lanes(['claim', ...paths], as)).code, 0);
  const other = (await lanes(['start', '--pid', String(process.pid)], { env, cwd: repo })).stdout.trim();
  assert.equal((await lanes(['claim', '--session', other, 'port:25100'], { env, cwd: repo })).code, 0);
  const ports = async () => JSON.parse((await lanes(['env', '--json'], as)).stdout) as Record<string, string>;
  const portClaims = async () =>
    (
      JSON.parse((await lanes(['claims', '--all', '--json'], as)).stdout) as {
        claim: { kind: string; name: string; sessionId: string; token: number };
      }[]
    )
      .map((h) => h.claim)
      .filter((c) => c.kind === 'port' && c.sessionId === id)
      .map((c) => `${c.name}#${c.token}`)
      .sort();
  const first = await ports();
  assert.ok(first['PORT_WEB'] && first['PORT_API'] && first['PORT_WEB'] !== first['PORT_API']);
  assert.notEqual(first['PORT_WEB'], '25100', "another session's port");
  const held = await portClaims();
  assert.equal(held.length, 2);
  const again = await ports();
  assert.deepEqual([again['PORT_WEB'], again['PORT_API']], [first['PORT_WEB'], first['PORT_API']]);
  assert.deepEqual(await portClaims(), held, 'nothing claimed again');
  assert.equal((await lanes(['release', `port:${first['PORT_WEB']}`], as)).code, 0);
  const leased = await ports();
  assert.ok(leased['PORT_WEB'], 'web leased again');
  assert.ok(
    (await portClaims()).some((c) => c.startsWith(`${leased['PORT_WEB']}#`)),
    'and its claim held',
  );
  assert.equal(leased['PORT_API'], first['PORT_API']);
});
