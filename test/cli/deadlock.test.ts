// Waits are visible and a wait that would never end is refused: three real processes waiting in a
// ring. A waits for what B holds, B for what C holds; C asking for what A holds is refused at once
// (exit 3, naming the cycle) while A and B go on waiting, and get their claims once freed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gitRepo, lanes, lanesChild, lanesEnv, tmp } from '../helpers/env.js';

test('a wait that closes a cycle of three sessions exits 3 naming it; the others keep waiting and are served', async () => {
  const env = lanesEnv(tmp());
  const repo = gitRepo();
  const start = async (label: string) =>
    (await lanes(['start', '--label', label, '--pid', String(process.pid)], { env, cwd: repo })).stdout.trim();
  const [a, b, c] = [await start('a'), await start('b'), await start('c')];
  const as = (id: string) => ({ env: { ...env, LANES_SESSION: id }, cwd: repo });
  for (const [id, t] of [
    [a, 'ticket:X'],
    [b, 'ticket:Y'],
    [c, 'ticket:Z'],
  ] as const)
    assert.equal((await lanes(['claim', t], as(id))).code, 0);

  // Each waiter's notice is printed after its wait was recorded: the signal that it is in place.
  const waitA = lanesChild(['claim', '--wait', 'ticket:Y'], as(a));
  await waitA.waitFor(/waiting for ticket:Y/, 'stderr');
  const waitB = lanesChild(['claim', '--wait', 'ticket:Z'], as(b));
  await waitB.waitFor(/waiting for ticket:Z/, 'stderr');

  const shown = await lanes(['claims', '--json'], as(c));
  const x = (JSON.parse(shown.stdout) as { claim: { name: string }; waiters: { session: string }[] }[]).find(
    (h) => h.claim.name === 'Y',
  );
  assert.deepEqual(
    x?.waiters.map((w) => w.session),
    [a],
    'lanes claims shows who waits for what',
  );
  assert.match((await lanes(['claims'], as(c))).stdout, new RegExp(`WAITING SESSION[^\\n]*\\n${a} +ticket:Y +${b}`));

  // Bounded: without the cycle check it would wait (and fail with exit 5), not hang the suite.
  const refused = await lanes(['claim', '--wait=20s', 'ticket:X', '--json'], as(c));
  assert.equal(refused.code, 3, refused.stderr);
  const { error: err } = JSON.parse(refused.stdout) as {
    error: { code: string; message: string; details: { cycle: { session: string }[] } };
  };
  assert.equal(err.code, 'E_DEADLOCK');
  assert.deepEqual(
    err.details.cycle.map((s) => s.session),
    [c, a, b],
  );
  assert.match(err.message, new RegExp(`${c} waits for ticket:X held by ${a}`));

  // Nothing changed for the others: freeing Z serves B, then freeing Y serves A.
  assert.equal((await lanes(['release', 'ticket:Z'], as(c))).code, 0);
  assert.equal((await waitB.exited).code, 0, waitB.stderr);
  assert.equal((await lanes(['release', 'ticket:Y'], as(b))).code, 0);
  assert.equal((await waitA.exited).code, 0, waitA.stderr);
  const kinds = (await lanes(['log', '--json', '--kind', 'claim.wait', '--kind', 'claim.cycle'], as(a))).stdout
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l) as { kind: string; session: string }).kind);
  assert.deepEqual(kinds, ['claim.wait', 'claim.wait', 'claim.cycle']);
  assert.equal(
    (await lanes(['claims', '--json'], as(a))).stdout.includes('"waiters": [\n        {'),
    false,
    'no waits left',
  );
});
