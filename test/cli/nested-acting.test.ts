import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, gitRepo, lanes, lanesEnv, tmp } from '../helpers/env.js';

// Issue 44, item 9: the acting session is the NEAREST ancestor's. Two nested runs each own a live
// session (`lanes start -- sh -c 'lanes start -- sh -c …'`): a command in the inner one acts as the
// inner session, with LANES_SESSION unset and with LANES_SESSION naming the outer one (an owner
// nearer than the environment's wins). Walking the chain from the top would pick the outer.

test('two nested sessions: a command inside the inner one acts as the inner, whatever LANES_SESSION says', async () => {
  const env = lanesEnv();
  const repo = gitRepo();
  const out = tmp('lanes-nested-');
  const l = `"${process.execPath}" "${CLI}"`;
  const inner = [
    `env -u LANES_SESSION -u LANES_RUN ${l} whoami --json > "${join(out, 'bare.json')}"`,
    `LANES_SESSION=$OUTER ${l} whoami --json > "${join(out, 'outer-env.json')}"`,
    `echo $LANES_SESSION > "${join(out, 'inner-id')}"`,
  ].join('; ');
  const outer = `OUTER=$LANES_SESSION; export OUTER; echo $OUTER > "${join(out, 'outer-id')}"; ${l} start --label inner -- sh -c '${inner}'`;
  const r = await lanes(['start', '--label', 'outer', '--', 'sh', '-c', outer], { env, cwd: repo });
  assert.equal(r.code, 0, r.stderr);
  const id = (f: string) => readFileSync(join(out, f), 'utf8').trim();
  const who = (f: string) => JSON.parse(readFileSync(join(out, f), 'utf8')) as { id: string };
  assert.notEqual(id('inner-id'), id('outer-id'));
  assert.equal(who('bare.json').id, id('inner-id'), 'no LANES_SESSION: the nearest owner, the inner session');
  assert.equal(who('outer-env.json').id, id('inner-id'), "LANES_SESSION=outer: the inner's owner is nearer");
});
