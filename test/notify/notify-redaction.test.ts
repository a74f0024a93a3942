import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { fixture, hook } from '../helpers/hooks.js';
import { deliveriesRunning, journaled, setup } from './notify-world.js';

// Issue 46, item 4: a notification carries only what the user asked to send.

const ID = 'notify-1';

test('what leaves the machine: stripped values and token-shaped words hidden, no absolute path; agent_text = false sends no words', async () => {
  const w = await setup();
  const secret = 'my-own-secret-value-42';
  const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U';
  writeFileSync(w.config, `${readFileSync(w.config, 'utf8')}\n[env]\nstrip = ["MY_*"]\n`);
  const opts = { ...w.opts, env: { ...w.opts.env, MY_TOKEN: secret } };
  await hook('claude-code', 'session-start', fixture('claude-code', 'session-start', w.repo, ID), opts);
  const message = `Claude needs your permission to use Bash: curl -H "Authorization: Bearer ${jwt}" -d ${secret} https://x; export ANTHROPIC_API_KEY=sk-ant-api03-abcdefghijklmnopqrstuvwxyz`;
  await hook('claude-code', 'notification', { ...fixture('claude-code', 'notification', w.repo, ID), message }, opts);
  const [req] = await w.hookServer.count(1);
  const text = req!.body.text ?? '';
  const all = () => JSON.stringify(w.hookServer.requests.map((r) => r.body.text));
  for (const leak of [secret, jwt, 'sk-ant-api03', w.repo])
    assert.ok(!text.includes(leak), `${leak.slice(0, 20)} left the machine: ${text}`);
  assert.match(text, /Bearer \[token hidden\]/, all());
  assert.match(text, /\[\$MY_TOKEN hidden\]/, all());
  assert.match(text, /Claude needs your permission to use Bash/, all());
  // The desktop's notify-send runs beside the webhook: both are delivered before notify.sent.
  const [sent] = await journaled(opts.env, 'notify.sent', 1);
  // Waited for, not assumed: a loaded machine may write the journal entry first.
  for (const end = Date.now() + 10_000; w.desktop.calls().length === 0 && Date.now() < end;)
    await new Promise((r) => setTimeout(r, 50));
  const [call] = w.desktop.calls();
  assert.ok(call, `notify-send ran (journaled: ${JSON.stringify(sent?.details)})`);
  assert.ok(!call!.join(' ').includes(secret) && !call!.join(' ').includes(jwt), 'nor on the desktop');

  const quiet = await setup();
  writeFileSync(quiet.config, `${readFileSync(quiet.config, 'utf8')}agent_text = false\n`);
  await hook('claude-code', 'session-start', fixture('claude-code', 'session-start', quiet.repo, ID), quiet.opts);
  await hook(
    'claude-code',
    'notification',
    { ...fixture('claude-code', 'notification', quiet.repo, ID), message },
    quiet.opts,
  );
  const [bare] = await quiet.hookServer.count(1);
  assert.match(bare!.body.text ?? '', /is waiting for you\./, bare!.body.text);
  assert.ok(!(bare!.body.text ?? '').includes('permission'), `no word of the agent's: ${bare!.body.text}`);
  // Both deliveries have finished writing to their homes before the test's clean-up removes them
  // (a delivery still journaling made that removal fail with ENOTEMPTY in .ci/run).
  await journaled(quiet.opts.env, 'notify.sent', 1);
  for (const home of [w.env['LANES_HOME']!, quiet.env['LANES_HOME']!])
    for (const deadline = Date.now() + 30_000; deliveriesRunning(home);) {
      assert.ok(Date.now() < deadline, 'deliveries still running after 30 s');
      await new Promise((r) => setTimeout(r, 50));
    }
});
