import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { lanes, node, owner } from '../helpers/env.js';
import { fixture, hook } from '../helpers/hooks.js';
import { deliveriesRunning, journaled, setup } from './notify-world.js';

// Issue 26, items 3 and 4: what the agents' own events say (waiting for you, finished, denied,
// died) shows on the session and is notified once, on the desktop (a stand-in notify-send) and a
// webhook (a real local HTTP server), journaled; a hook never waits for either.

async function attentionOf(opts: { env: Record<string, string>; cwd: string }, id: string) {
  const r = await lanes(['ls', '--json'], opts);
  const s = (JSON.parse(r.stdout) as { id: string; attention: { state: string; why: string | null } | null }[]).find(
    (x) => x.id === id,
  );
  return s?.attention ?? null;
}

const ID = 'notify-1';
const SESSION = `claude-code:${ID}`;

test('a permission prompt shows the session waiting and is notified once, on the desktop and the webhook', async () => {
  const { repo, opts, hookServer, desktop } = await setup();
  await hook('claude-code', 'session-start', fixture('claude-code', 'session-start', repo, ID), opts);
  const prompt = fixture('claude-code', 'notification', repo, ID);
  const first = await hook('claude-code', 'notification', prompt, opts);
  assert.equal(first.code, 0);
  assert.equal(first.stdout, '', 'a Notification hook prints nothing');
  // The same prompt told again (idle_prompt after permission_prompt, a retried hook): no second notification.
  await hook('claude-code', 'notification', { ...prompt, notification_type: 'idle_prompt' }, opts);
  const shown = (await attentionOf(opts, SESSION)) as { state: string; why: string | null; at: number } | null;
  assert.equal(shown?.state, 'waiting');
  assert.equal(shown?.why, 'Claude needs your permission to use Bash');
  assert.ok(typeof shown?.at === 'number' && shown.at > 0);
  const [sent] = await journaled(opts.env, 'notify.sent', 1);
  assert.deepEqual(sent!.details['channels']!.toString().split(',').sort(), ['desktop', 'webhook']);
  assert.equal((await journaled(opts.env, 'attention', 1)).length, 1, 'one wait, one attention entry');
  const [req] = await hookServer.count(1);
  assert.match(req!.body.text!, /waiting for you/);
  assert.match(req!.body.text!, /Claude needs your permission to use Bash/);
  assert.deepEqual(Object.keys(req!.body), ['text'], 'Slack-compatible: {"text": …}');
  const [call] = desktop.calls();
  assert.ok(call, 'notify-send ran');
  assert.equal(call![0], '--app-name=lanes');
  assert.match(call!.at(-2)!, /^lanes: .* is waiting for you$/);

  // Working again (a tool call) clears the wait; the turn's end shows finished, and is notified.
  await hook('claude-code', 'pre-tool-use', fixture('claude-code', 'pre-tool-use-edit', repo, ID), opts);
  assert.equal(await attentionOf(opts, SESSION), null);
  await hook('claude-code', 'stop', fixture('claude-code', 'stop', repo, ID), opts);
  assert.equal((await attentionOf(opts, SESSION))?.state, 'finished');
  const after = await hookServer.count(2);
  assert.match(after[1]!.body.text!, /finished its turn: Done/);
  // A new prompt: working again.
  await hook(
    'claude-code',
    'user-prompt-submit',
    { ...fixture('claude-code', 'stop', repo, ID), hook_event_name: 'UserPromptSubmit', prompt: 'go on' },
    opts,
  );
  assert.equal(await attentionOf(opts, SESSION), null);
  assert.equal(hookServer.requests.length, 2, 'one notification per event');
});

test('a hook never waits for a notification: it has exited while the webhook still holds the request', async () => {
  const { repo, opts, hookServer } = await setup();
  hookServer.answer = 'hold';
  await hook('claude-code', 'session-start', fixture('claude-code', 'session-start', repo, ID), opts);
  const r = await hook('claude-code', 'notification', fixture('claude-code', 'notification', repo, ID), opts);
  assert.equal(r.code, 0);
  // Had the hook waited, it would have returned only after the webhook's timeout and its retries.
  assert.ok(hookServer.requests.length <= 1, `${hookServer.requests.length} requests before the hook returned`);
  await hookServer.count(1);
  hookServer.release();
  await journaled(opts.env, 'notify.sent', 1);
});

test('a failing webhook is tried three times, then reported once (journal, report, needs you)', async () => {
  const { repo, opts, hookServer } = await setup();
  hookServer.answer = 500;
  await hook('claude-code', 'session-start', fixture('claude-code', 'session-start', repo, ID), opts);
  await hook('claude-code', 'stop-failure', fixture('claude-code', 'stop-failure', repo, ID), opts);
  const [fail] = await journaled(opts.env, 'notify.fail', 1);
  assert.equal(fail!.details['channel'], 'webhook');
  assert.equal(fail!.details['attempts'], 3);
  assert.match(String(fail!.details['error']), /answered 500/);
  assert.doesNotMatch(String(fail!.details['error']), /secret/, 'the webhook path (its secret) is not journaled');
  assert.equal(hookServer.requests.length, 3);
  const sent = await journaled(opts.env, 'notify.sent', 1);
  assert.deepEqual(sent[0]!.details['channels'], ['desktop'], 'the desktop took it');
  const report = JSON.parse((await lanes(['report', '--json'], opts)).stdout) as {
    notifyFailing: { channel: string }[];
    needsYou: { what: string; command: string }[];
  };
  assert.deepEqual(
    report.notifyFailing.map((f) => f.channel),
    ['webhook'],
  );
  assert.ok(report.needsYou.some((n) => n.command === 'lanes notify test' && /webhook fail/.test(n.what)));
  assert.ok(
    report.needsYou.some((n) =>
      /waits for you: the login ran out \(rate_limit\): You've hit your session limit/.test(n.what),
    ),
  );
});

test('a denied call shows on the session until its turn ends, and is notified', async () => {
  const { repo, opts, env, hookServer } = await setup();
  const holder = await owner(env);
  const claimed = await lanes(['start', '--json', '--pid', holder.pid, '--label', 'holder'], opts);
  const holderId = (JSON.parse(claimed.stdout) as { id: string }).id;
  assert.equal(
    (await lanes(['claim', 'path:src/billing/seat.ts'], { ...opts, env: { ...env, LANES_SESSION: holderId } })).code,
    0,
  );
  await hook('claude-code', 'session-start', fixture('claude-code', 'session-start', repo, ID), opts);
  const edit = fixture('claude-code', 'pre-tool-use-edit', repo, ID, (p) => {
    (p['tool_input'] as Record<string, unknown>)['file_path'] = join(repo, 'src', 'billing', 'seat.ts');
  });
  const denied = await hook('claude-code', 'pre-tool-use', edit, opts);
  assert.match(denied.stdout, /"permissionDecision":"deny"/);
  assert.equal((await attentionOf(opts, SESSION))?.state, 'denied');
  const [req] = await hookServer.count(1);
  assert.match(req!.body.text!, /was denied a call: .*seat\.ts/);
  // Another (allowed) call in the same turn leaves it shown; the turn's end replaces it.
  const other = fixture('claude-code', 'pre-tool-use-edit', repo, ID, (p) => {
    (p['tool_input'] as Record<string, unknown>)['file_path'] = join(repo, 'src', 'other.ts');
  });
  await hook('claude-code', 'pre-tool-use', other, opts);
  assert.equal((await attentionOf(opts, SESSION))?.state, 'denied');
  await hook('claude-code', 'stop', fixture('claude-code', 'stop', repo, ID), opts);
  assert.equal((await attentionOf(opts, SESSION))?.state, 'finished');
  // A turn interrupted (no Stop) and a new prompt: the last turn's deny is over.
  await hook('claude-code', 'pre-tool-use', edit, opts);
  assert.equal((await attentionOf(opts, SESSION))?.state, 'denied');
  const prompt = { ...fixture('claude-code', 'stop', repo, ID), hook_event_name: 'UserPromptSubmit', prompt: 'again' };
  await hook('claude-code', 'user-prompt-submit', prompt, opts);
  assert.equal(await attentionOf(opts, SESSION), null);
  const [deny] = await journaled(opts.env, 'hook.deny', 1);
  assert.match(String(deny!.details['reason']), /seat\.ts/, 'the deny is journaled with its reason');
});

test('a session that dies is notified once, by whichever lanes call proves it', async () => {
  const { opts, env, hookServer } = await setup();
  const agent = await owner(env);
  const r = await lanes(['start', '--json', '--pid', agent.pid, '--label', 'night-worker', '--ticket', 'SEAT-7'], opts);
  assert.equal(r.code, 0, r.stderr);
  await agent.kill();
  // Eight judges, each with the library open, told to judge at the same moment: the death is
  // recorded by one of them, and so notified once.
  const judges = Array.from({ length: 8 }, () => node('judge.mjs', [], { env: opts.env, cwd: opts.cwd }));
  await Promise.all(judges.map((j) => j.waitFor(/ready/)));
  for (const j of judges) j.send('go');
  await Promise.all(judges.map((j) => j.waitFor(/done/)));
  const [req] = await hookServer.count(1);
  assert.match(req!.body.text!, /night-worker \(SEAT-7\) died/);
  assert.match(req!.body.text!, /`lanes new SEAT-7 --resume` goes on with it/);
  // Every delivery any of them started has finished (no `lanes notify deliver` of this home left).
  for (const deadline = Date.now() + 30_000; deliveriesRunning(opts.env['LANES_HOME']!);) {
    assert.ok(Date.now() < deadline, 'deliveries still running after 30 s');
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(hookServer.requests.length, 1, 'one death, one notification');
  const sent = await journaled(opts.env, 'notify.sent', 1);
  assert.equal(sent.filter((e) => e.details['event'] === 'died').length, 1);
});

test('only the events [notify] names are notified; none without a channel', async () => {
  const { repo, opts, hookServer } = await setup('["died"]');
  await hook('claude-code', 'session-start', fixture('claude-code', 'session-start', repo, ID), opts);
  await hook('claude-code', 'notification', fixture('claude-code', 'notification', repo, ID), opts);
  // The wait is shown and journaled all the same.
  assert.equal((await attentionOf(opts, SESSION))?.state, 'waiting');
  await journaled(opts.env, 'attention', 1);
  assert.equal(hookServer.requests.length, 0);
});

test('lanes notify test: what each channel answered; bad [notify] settings are named with file and line', async () => {
  const { opts, config, hookServer } = await setup();
  const ok = await lanes(['notify', 'test'], opts);
  assert.equal(ok.code, 0, ok.stderr);
  assert.match(ok.stdout, /^desktop\s+sent$/m);
  assert.match(ok.stdout, /^webhook\s+sent$/m);
  assert.match((await hookServer.count(1))[0]!.body.text!, /notify-test/);
  hookServer.answer = 404;
  const failed = await lanes(['notify', 'test', '--json'], opts);
  assert.equal(failed.code, 1);
  const out = JSON.parse(failed.stdout) as { channel: string; ok: boolean; attempts: number; error: string }[];
  assert.deepEqual(
    out.find((d) => d.channel === 'webhook'),
    { channel: 'webhook', ok: false, attempts: 1, error: `${new URL(hookServer.url).origin}/… answered 404 Not Found` },
  );
  // A redirect is not followed, and is said as one (it was "fetch failed").
  hookServer.answer = 302;
  const moved = await lanes(['notify', 'test'], opts);
  assert.equal(moved.code, 1);
  assert.match(moved.stdout, /answered 302, a redirect to https:\/\/elsewhere\.example\/…: lanes follows no redirect/);
  assert.doesNotMatch(moved.stdout, /SEKRIT|fetch failed/);
  assert.equal(hookServer.requests.length, 3, 'one request, never a second one elsewhere');
  for (const [text, want] of [
    [
      '[notify]\nwebhook = "ftp://example.com/x"\n',
      /config\.toml:2: notify\.webhook: expected an http:\/\/ or https:\/\/ URL/,
    ],
    [
      '[notify]\nevents = ["waiting", "lunch"]\n',
      /notify\.events: expected a list of events among "waiting", "finished", "denied", "died"/,
    ],
    ['[notify]\ndesktop = "yes"\n', /notify\.desktop: expected true or false/],
    [
      '[notify]\nwebhook = "https://me:tok3n@example.com/x"\n',
      /notify\.webhook: expected .* without a user or password/,
    ],
    ['[notify]\nwebhook = "hooks.slack.com/services/T0/B0/SEKRIT"\n', /notify\.webhook: expected an http/],
    ['[notify]\nsound = true\n', /notify\.sound: expected desktop, webhook, events or agent_text \(unknown key\)/],
  ] as const) {
    writeFileSync(config, text);
    const r = await lanes(['notify', 'test'], opts);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, want);
    assert.doesNotMatch(r.stderr, /SEKRIT|tok3n/, 'a webhook is never echoed');
  }
  writeFileSync(config, '[notify]\nevents = ["died"]\n');
  const none = await lanes(['notify', 'test'], opts);
  assert.match(none.stderr, /no notification channel is on/);
  // A repository cannot turn notifications on (they are each user's).
  writeFileSync(join(opts.cwd, 'lanes.toml'), '[notify]\ndesktop = true\n');
  const id = (await lanes(['start', '--label', 'cfg'], opts)).stdout.trim();
  const repoWide = await lanes(['env'], { ...opts, env: { ...opts.env, LANES_SESSION: id } });
  assert.equal(repoWide.code, 2);
  assert.match(repoWide.stderr, /lanes\.toml:1: \[notify\]: expected \[notify\] only in the user config/);
});
